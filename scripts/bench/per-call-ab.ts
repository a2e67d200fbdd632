/**
 * Per-call CPU of two trees in ONE process (issue 27.1): on a shared, loaded machine two runs of
 * per-call.ts differ by 50%, so a before/after of a few percent needs both versions measured under the
 * same load. The other tree (`--before DIR`, a copy of an older commit) is imported next to this one,
 * each with its own app, dialect and driver, on the same PostgreSQL database, and the calls alternate
 * between them (before, after, after, before, ...). Prepare the copy once:
 *
 *   mkdir /tmp/before && git archive <commit> | tar -x -C /tmp/before
 *   grep -rl '"@/' /tmp/before/src | xargs sed -i 's#"@/#"/tmp/before/src/#g'
 *   sed -i 's#from "postgres"#from "/tmp/before/vendor/postgres-js/index.js"#' /tmp/before/src/db/dialect.ts
 *
 *   TEST_DATABASE_URL=postgres://... deno run -A scripts/bench/per-call-ab.ts --before /tmp/before
 *   [--calls 600] [--only me,ledger]
 *
 * Prints, per row, the mean CPU per call of the fastest 90% of calls, the medians and the ratio; the
 * floor row is one `select $1` through each tree's dialect (Kysely and postgres.js, no HTTP).
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { CompiledQuery } from "kysely";
import { createApp } from "@/app.ts";
import { openDatabase } from "@/db/dialect.ts";
import { ADMIN_TOKEN, startTestEnv } from "../../tests/helpers/env.ts";
import { callApp } from "./in-process.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    before: { type: "string" },
    calls: { type: "string", default: "600" },
    only: { type: "string", default: "" },
  },
});
if (!Deno.env.get("TEST_DATABASE_URL") || !args.values.before) {
  console.error("Set TEST_DATABASE_URL and pass --before DIR (see the comment at the top)");
  Deno.exit(2);
}
const BEFORE = args.values.before.replace(/\/+$/, "");
const CALLS = Number(args.values.calls);
const ONLY = args.values.only.split(",").map((o) => o.trim().toLowerCase()).filter(Boolean);

type App = { fetch(r: Request): Response | Promise<Response> };
type Opened = Awaited<ReturnType<typeof openDatabase>>;
const old = {
  app: (await import(`${BEFORE}/src/app.ts`)) as { createApp: (deps: unknown) => App },
  dialect: (await import(`${BEFORE}/src/db/dialect.ts`)) as {
    openDatabase: (url: string, dir: string) => Promise<Opened>;
  },
};

const e = await startTestEnv({ testClock: false });
const url = e.config.databaseUrl ?? "";
const dbAfter = await openDatabase(url, "");
const dbBefore = await old.dialect.openDatabase(url, "");
const after = createApp({ db: dbAfter.db, engine: e.engine, clock: e.clock, config: e.config });
const before = old.app.createApp({ db: dbBefore.db, engine: e.engine, clock: e.clock, config: e.config });

const api = callApp;

const org = await api(after, ADMIN_TOKEN, "POST", "/admin/orgs", { name: "AB", plan: "enterprise" });
const project = await api(after, ADMIN_TOKEN, "POST", "/admin/projects", {
  orgId: org.id,
  name: "AB",
  ticketPrefix: "AB",
});
const keys: { key: string; ticket: string }[] = [];
for (let i = 0; i < 4; i++) {
  const k = await api(after, ADMIN_TOKEN, "POST", `/admin/projects/${project.id}/api-keys`, {
    name: `k${i}`,
    agentName: `ab-${i}`,
    role: "generator",
  });
  if (i === 0) {
    await api(after, k.key, "PATCH", "/api/brief", { scope: "Per call", goals: "Measure", stack: "Deno" });
  }
  const t = await api(after, k.key, "POST", "/api/ticket", {
    title: `Ticket ${i}`,
    expectedFiles: [`src/t${i}.ts`],
    doneDefinition: `Ticket ${i} works and is tested`,
    verificationCommand: "deno task test",
    riskClass: "local",
    assignToSelf: true,
  });
  keys.push({ key: k.key, ticket: t.id });
}

type Side = { app: App; db: Opened["db"] };
type Step = (s: Side, k: { key: string; ticket: string }, i: number) => Promise<unknown>;
const rows: [string, Step][] = [
  ["floor: select $1", (s) => s.db.executeQuery(CompiledQuery.raw("select $1::int as x", [1]))],
  ["GET /me", (s, k) => api(s.app, k.key, "GET", "/api/me")],
  [
    "POST /ledger",
    (s, k, i) => api(s.app, k.key, "POST", "/api/ledger", { type: "PROGRESS", content: `e ${i}` }),
  ],
  [
    "POST /ledger with ticketId",
    (s, k, i) =>
      api(s.app, k.key, "POST", "/api/ledger", { type: "PROGRESS", content: `e ${i}`, ticketId: k.ticket }),
  ],
  ["POST /claim + /release", async (s, k, i) => {
    await api(s.app, k.key, "POST", "/api/claim", { files: [`src/f${i}.ts`] });
    await api(s.app, k.key, "POST", "/api/release", { files: [`src/f${i}.ts`] });
  }],
  ["GET /context full", (s, k) => api(s.app, k.key, "GET", "/api/context")],
];

let n = 0;
async function one(side: Side, f: Step): Promise<number> {
  // The rate windows are reset outside the measure, as in per-call.ts.
  if (n % 10 === 0) await e.db.deleteFrom("rate_counters").execute();
  const k = keys[n % keys.length]!;
  const cpu = process.cpuUsage();
  await f(side, k, n++);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000;
}
const sorted = (v: number[]) => [...v].sort((x, y) => x - y);
const fastMean = (v: number[]) => {
  const kept = sorted(v).slice(0, Math.floor(v.length * 0.9));
  return kept.reduce((x, y) => x + y, 0) / kept.length;
};
const median = (v: number[]) => sorted(v)[Math.floor(v.length / 2)]!;

const sides = { before: { app: before, db: dbBefore.db }, after: { app: after, db: dbAfter.db } };
console.log(`load average ${Deno.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
console.log("| call | before ms CPU | after ms CPU | before median | after median | after / before |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (
  const [name, f] of rows.filter(([nm]) =>
    ONLY.length === 0 || ONLY.some((o) => nm.toLowerCase().includes(o))
  )
) {
  for (let w = 0; w < 100; w++) {
    await one(sides.before, f);
    await one(sides.after, f);
  }
  const b: number[] = [], a: number[] = [];
  for (let r = 0; r < CALLS; r++) {
    const order = r % 2 === 0 ? ["before", "after"] as const : ["after", "before"] as const;
    for (const side of order) (side === "before" ? b : a).push(await one(sides[side], f));
  }
  console.log(
    `| ${name} | ${fastMean(b).toFixed(3)} | ${fastMean(a).toFixed(3)} | ${median(b).toFixed(3)} | ` +
      `${median(a).toFixed(3)} | ${(fastMean(a) / fastMean(b)).toFixed(2)} |`,
  );
}
console.log(`load average ${Deno.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
await dbAfter.close();
await dbBefore.close();
await e.close();
Deno.exit(0);
