import assert from "node:assert/strict";
import { createApp } from "@/app.ts";
import { openDatabase } from "@/db/dialect.ts";
import { entriesOverlap } from "@/shared/file-path.ts";
import { admin, callOn, env, newProject, test, type TestEnv } from "../helpers/mod.ts";
import { board, ticket } from "../workflow/fixtures.ts";

// Issue 24 point 5, exact under races: concurrent claims of overlapping entries (a directory, directories
// inside it, a file and a symbol under them) by different agents have exactly one winner per overlapping
// set, on PGlite and on PostgreSQL, and across several service instances on one PostgreSQL. The one-holder
// index cannot see these overlaps (the keys differ): the project's claim lock makes them exact.

/**
 * Eight entries that overlap pairwise: nested directories, the file under them, one symbol of it, and the
 * directory of the file's own path (a file `x` and a directory `x/` overlap).
 */
function overlappingSet(k: number): string[] {
  return [
    `hot${k}/`,
    `hot${k}/a/`,
    `HOT${k}/A/b/`,
    `hot${k}/a/b/c.ts`,
    `hot${k}/a/b/c.ts#f`,
    `hot${k}/**`,
    `hot${k}/a/b/c.ts/`,
    `hot${k}/a/b/C.ts`,
  ];
}

async function liveEntries(e: TestEnv, projectId: string) {
  const rows = await e.db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
    .select(["f.file", "c.agent_id"]).where("f.project_id", "=", projectId).where("f.released_at", "is", null)
    .where("c.released_at", "is", null).execute();
  return rows;
}

/** Every pair of live entries of different agents overlaps nowhere. */
function assertNoOverlap(rows: Array<{ file: string; agent_id: string }>): void {
  for (const x of rows) {
    for (const y of rows) {
      if (x.agent_id !== y.agent_id) {
        assert.ok(!entriesOverlap(x.file, y.file), `${x.file} and ${y.file} held by two agents`);
      }
    }
  }
}

async function racers(projectId: string, n: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < n; i++) {
    keys.push((await admin("POST", `/projects/${projectId}/api-keys`, { agentName: `racer-${i}` })).key);
  }
  return keys;
}

/** 32 agents, 4 sets of 8 pairwise-overlapping entries; each agent also claims a file of its own. */
async function race(instances: TestEnv[]): Promise<void> {
  const e = await env();
  const { projectId } = await newProject();
  const keys = await racers(projectId, 32);
  const results = await Promise.all(
    keys.map((token, i) =>
      callOn(instances[i % instances.length]!, "POST", "/api/claim", {
        token,
        body: { files: [overlappingSet(i % 4)[Math.floor(i / 4)]!, `own/racer-${i}.ts`] },
      })
    ),
  );
  for (let k = 0; k < 4; k++) {
    const statuses = results.filter((_, i) => i % 4 === k).map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 1, `set ${k}: ${JSON.stringify(statuses)}`);
    assert.equal(statuses.filter((s) => s === 409).length, 7, `set ${k}: ${JSON.stringify(statuses)}`);
  }
  for (const r of results.filter((r) => r.status === 409)) {
    assert.equal(r.body.error.code, "CONFLICT");
    assert.match(r.body.error.details.conflicts[0].claimantName, /^racer-\d+$/);
  }
  const live = await liveEntries(e, projectId);
  assert.equal(live.length, 8, "four winners, each with its entry and its own file");
  assertNoOverlap(live);
}

test("CLAIMQ-5 32 concurrent claims of overlapping directory, file and symbol entries: exactly one winner per overlapping set", async () => {
  await race([await env()]);
});

test("CLAIMQ-5 two symbols of one file race with the whole file: either the file alone or both symbols, never both kinds", async () => {
  const e = await env();
  for (let round = 0; round < 4; round++) {
    const { projectId } = await newProject();
    const keys = await racers(projectId, 3);
    const asked = ["src/t.ts#parse", "src/t.ts#format", "src/t.ts"];
    const order = round % 2 === 0 ? [0, 1, 2] : [2, 1, 0];
    const results = await Promise.all(
      order.map((i) => callOn(e, "POST", "/api/claim", { token: keys[i]!, body: { files: [asked[i]!] } })),
    );
    const won = order.filter((_, j) => results[j]!.status === 200).map((i) => asked[i]!).sort();
    assert.ok(
      JSON.stringify(won) === JSON.stringify(["src/t.ts"]) ||
        JSON.stringify(won) === JSON.stringify(["src/t.ts#format", "src/t.ts#parse"]),
      JSON.stringify(won),
    );
    assertNoOverlap(await liveEntries(e, projectId));
  }
});

test("CLAIMQ-5 over 3 service instances on one PostgreSQL: still exactly one winner per overlapping set", async () => {
  const e = await env();
  if (e.engine !== "postgres") return; // PGlite is one process with one connection.
  const opened = await Promise.all([1, 2].map(() => openDatabase(e.config.databaseUrl, "")));
  try {
    const others: TestEnv[] = opened.map((o) => {
      const app = createApp({ db: o.db, engine: o.engine, clock: e.clock, config: e.config });
      return {
        ...e,
        db: o.db,
        fetch: (path: string, init?: RequestInit) =>
          Promise.resolve(app.fetch(new Request(`http://localhost:8787${path}`, init))),
      };
    });
    await race([e, ...others]);
  } finally {
    await Promise.all(opened.map((o) => o.close()));
  }
});

test("CLAIMQ-5 POST /begin of a directory racing POST /claim of a file under it: exactly one wins", async () => {
  const e = await env();
  for (let round = 0; round < 4; round++) {
    const b = await board();
    const t = await ticket(b, { status: "backlog" });
    const beginCall = () =>
      callOn(e, "POST", "/api/begin", {
        token: b.dev.token,
        body: { ticketId: t.ref, files: [`race${round}/`] },
      });
    const claimCall = () =>
      callOn(e, "POST", "/api/claim", {
        token: b.other.token,
        body: { files: [`race${round}/deep/x.ts#f`] },
      });
    const results = round % 2 === 0
      ? await Promise.all([beginCall(), claimCall()])
      : (await Promise.all([claimCall(), beginCall()])).reverse();
    assert.deepEqual(
      results.map((r) => r.status).sort(),
      [200, 409],
      results.map((r) => r.text).join("\n"),
    );
    assertNoOverlap(await liveEntries(e, b.projectId));
  }
});
