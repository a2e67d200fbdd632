// deno-lint-ignore-file no-explicit-any
/**
 * Fuzzing from the contract (issue 8, item 3): every operation of `openapi/openapi.json` gets generated
 * requests, valid ones built from its JSON Schemas (with real ids of a seeded project, so that they reach
 * the handlers) and hostile ones (see `fuzz/requests.ts`). Properties: no 5xx, every answer JSON in the
 * spec's envelope, every body valid against the schema documented for its operation and status.
 *
 * Replay: the seed and run count are printed; `FUZZ_SEED=<n> FUZZ_RUNS=<runs per operation>` repeats a run,
 * `FUZZ_OPS="POST /ticket,GET /board"` narrows it to some operations, `FUZZ_VERBOSE=1` prints every
 * request and answer. Default: 10 runs per operation
 * (about 550 requests); `FUZZ_RUNS=100` is a thorough run (about 5,000 requests, a few minutes).
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { env, test } from "../helpers/mod.ts";
import { violations } from "./fuzz/check.ts";
import { buildRequest, type BuiltRequest, type Plan, planArb } from "./fuzz/requests.ts";
import { repair, seedWorld, type World } from "./fuzz/seed.ts";
import { loadContract, type Operation } from "./fuzz/spec.ts";
import { valueGen } from "./fuzz/values.ts";

const contract = await loadContract();
const values = valueGen(contract);
const SEED = Number(Deno.env.get("FUZZ_SEED") ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(Deno.env.get("FUZZ_RUNS") ?? 10);
const ONLY = (Deno.env.get("FUZZ_OPS") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
const VERBOSE = Deno.env.get("FUZZ_VERBOSE") === "1";
const TIMEOUT_MS = 30_000;

const stats = {
  requests: 0,
  valid: 0,
  invalid: 0,
  byStatus: new Map<number, number>(),
  findings: 0,
  repairs: 0,
  /** Operation -> successful answers (to see which operations the valid requests reached). */
  successes: new Map<string, number>(),
};

let worldPromise: Promise<World> | null = null;
let dirty = false;
let sinceReset = 0;

function world(): Promise<World> {
  worldPromise ??= (async () => {
    const started = performance.now();
    await env();
    const ready = performance.now();
    const w = await seedWorld();
    console.log(
      `contract fuzz: service up in ${Math.round(ready - started)} ms, project seeded in ` +
        `${Math.round(performance.now() - ready)} ms`,
    );
    return w;
  })();
  return worldPromise;
}

interface Finding {
  request: string;
  status: number;
  problems: string[];
  response: string;
}

async function send(req: BuiltRequest) {
  const e = await env();
  const init: RequestInit = { method: req.method, headers: req.headers };
  if (req.body !== undefined) init.body = req.body as BodyInit;
  // Construct the request first: what the client side refuses never reaches the service.
  new Request(`http://localhost:8787${req.url}`, init);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
  });
  try {
    const res = await Promise.race([e.fetch(req.url, init), timeout]);
    const contentType = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (contentType === "text/event-stream") {
      // A stream (GET /events/stream) never ends by itself: its status and headers are the answer.
      await res.body?.cancel();
      return { status: res.status, headers: res.headers, contentType, text: "", json: undefined };
    }
    const text = await res.text();
    let json: unknown = undefined;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, contentType, text, json };
  } finally {
    clearTimeout(timer);
  }
}

/** Records what the request created or spent, so later requests use live ids. */
function learn(op: Operation, req: BuiltRequest, plan: Plan, res: { status: number; json: any }, w: World) {
  const data = res.json?.data;
  const ok = res.status >= 200 && res.status < 300;
  let sent: any = undefined;
  try {
    sent = typeof req.body === "string" ? JSON.parse(req.body) : undefined;
  } catch { /* not JSON */ }
  if (data && typeof data === "object") {
    for (const key of ["nextCursor", "ledgerCursor", "pendingReviewsCursor"]) {
      if (typeof data[key] === "string" && w.cursors.length < 30) w.cursors.push(data[key]);
    }
    if (typeof data.pollingHint?.cursor === "string" && w.cursors.length < 30) {
      w.cursors.push(data.pollingHint.cursor);
    }
  }
  if (ok && data) {
    switch (op.id) {
      case "POST /ticket":
        if (typeof data.id === "string" && typeof data.number === "number") {
          w.ticketIds.push(data.id);
          w.ticketKeys.push(`${w.prefix}-${data.number}`);
        }
        break;
      case "POST /thread":
        if (typeof data.id === "string") w.threadIds.push(data.id);
        break;
      case "POST /sprint":
        if (typeof data.id === "string") w.sprintIds.push(data.id);
        break;
      case "POST /ticket/{ticketId}/artifacts":
        if (typeof data.id === "string") w.artifacts.push({ ticketId: data.ticketId, id: data.id });
        break;
      case "POST /subagent/session":
        if (typeof data.sessionId === "string") w.sessionIds.push(data.sessionId);
        break;
      case "POST /pair/connect":
        w.pairingCodes = w.pairingCodes.filter((c) => c !== sent?.code);
        if (typeof data.sessionToken === "string") w.spareTokens.push(data.sessionToken);
        if (typeof data.sessionId === "string") w.sessionIds.push(data.sessionId);
        if (typeof data.agent?.id === "string") w.agentIds.push(data.agent.id);
        break;
      case "POST /session/refresh":
        w.spareTokens = w.spareTokens.filter((t) => t !== sent?.token);
        if (typeof data.sessionToken === "string") w.spareTokens.push(data.sessionToken);
        dirty = true;
        break;
      case "DELETE /ticket": {
        const i = w.ticketIds.indexOf(data.id);
        if (i >= 0) (w.ticketIds.splice(i, 1), w.ticketKeys.splice(i, 1));
        dirty = true;
        break;
      }
    }
  }
  if (
    ["POST /handoff", "POST /session/complete", "PATCH /session/{sessionId}", "DELETE /subagent/session"]
      .includes(op.id) && ok
  ) dirty = true;
  if (op.id === "POST /pair/connect" || op.id === "POST /session/refresh") dirty = true;
  // A credential we believe valid was refused: something upstream ended it.
  const authTouched = plan.mutations.some((m) => m.kind.startsWith("auth:") || m.kind === "header:subAgent");
  if (res.status === 401 && op.bearer && !authTouched) dirty = true;
}

async function prepare(w: World) {
  const e = await env();
  // Rate windows are not under test here: counters start afresh every few requests (fewer than any
  // window allows: 8 requests of at most 6 units, 8 pairing attempts).
  if (++sinceReset >= 8) {
    sinceReset = 0;
    await e.db.deleteFrom("rate_counters").execute();
  }
  if (dirty) {
    dirty = false;
    stats.repairs += await repair(w);
    await e.db.deleteFrom("rate_counters").execute();
  }
}

console.log(
  `contract fuzz: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}${ONLY.length ? ` FUZZ_OPS="${ONLY.join(",")}"` : ""} ` +
    `(${contract.operations.length} operations)`,
);

contract.operations.forEach((op, index) => {
  if (ONLY.length && !ONLY.includes(op.id)) return;
  test(`FUZZ ${op.id}: no 5xx, spec envelope, documented response schema`, async () => {
    const w = await world();
    const findings: Finding[] = [];
    const arb = fc.oneof(
      planArb(op, values, "valid").map((p) => ({ plan: p, valid: true })),
      planArb(op, values, "invalid").map((p) => ({ plan: p, valid: false })),
    );
    await fc.assert(
      fc.asyncProperty(arb, async ({ plan, valid }) => {
        await prepare(w);
        const req = buildRequest(op, plan, w);
        let res;
        try {
          res = await send(req);
        } catch (err) {
          if (err instanceof TypeError) return true; // refused by the client (Request), never sent
          findings.push({ request: req.summary(), status: 0, problems: [String(err)], response: "" });
          return true;
        }
        stats.requests++;
        valid ? stats.valid++ : stats.invalid++;
        stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
        if (res.status < 300) stats.successes.set(op.id, (stats.successes.get(op.id) ?? 0) + 1);
        if (VERBOSE) console.log(`${res.status} ${req.summary()}\n    ${res.text.slice(0, 240)}`);
        const problems = violations(contract, op, res);
        learn(op, req, plan, res, w);
        if (problems.length) {
          findings.push({
            request: req.summary(),
            status: res.status,
            problems,
            response: res.text.slice(0, 400),
          });
        }
        return true;
      }),
      { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
    );
    stats.findings += findings.length;
    if (findings.length) {
      const report = findings.slice(0, 8).map((f) =>
        `- ${f.request}\n  -> ${f.status}: ${f.problems.join(" | ")}\n  ${f.response}`
      ).join("\n");
      assert.fail(
        `${findings.length} of ${RUNS} requests broke the contract; replay with ` +
          `FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} FUZZ_OPS="${op.id}"\n${report}`,
      );
    }
  });
});

const TEMPLATES = contract.operations.map((op) => ({
  op,
  re: new RegExp(`^/(api|svc)${op.path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
}));

test("FUZZ unknown paths and undocumented methods: JSON 404 NOT_FOUND, never HTML, no 5xx", async () => {
  const w = await world();
  const segment = fc.oneof(
    fc.constantFrom(
      "ticket",
      "tickets",
      "admin",
      "..",
      "%2e%2e",
      "%00",
      "v1",
      "me",
      "x",
      "",
      "%ZZ",
      "%ED%A0%80",
    ),
    fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/),
  );
  const arb = fc.record({
    prefix: fc.constantFrom("/api", "/svc"),
    segments: fc.array(segment, { minLength: 1, maxLength: 4 }),
    documented: fc.nat({ max: TEMPLATES.length - 1 }),
    useDocumented: fc.boolean(),
    method: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"),
  });
  const findings: string[] = [];
  await fc.assert(
    fc.asyncProperty(arb, async (p) => {
      await prepare(w);
      const path = p.useDocumented
        ? p.prefix + TEMPLATES[p.documented]!.op.path.replace(/\{[^}]+\}/g, crypto.randomUUID())
        : `${p.prefix}/${p.segments.join("/")}`;
      // The URL parser resolves dot segments (`%2e%2e` too) before the service sees the path.
      const seen = new URL(path, "http://localhost").pathname;
      // A path that resolves out of /api and /svc (`/svc/..` is `/`) reaches the dashboard's pages.
      if (!/^\/(api|svc)(\/|$)/.test(seen)) return true;
      const known = TEMPLATES.filter((t) => t.re.test(seen));
      if (known.some((t) => t.op.method === p.method)) return true;
      const e = await env();
      const res = await e.fetch(path, {
        method: p.method,
        headers: { Authorization: `Bearer ${w.agents.generator.token}` },
      });
      const text = await res.text();
      stats.requests++;
      stats.invalid++;
      stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
      let body: any = null;
      try {
        body = JSON.parse(text);
      } catch { /* checked below */ }
      const type = res.headers.get("content-type") ?? "";
      // Text the service cannot store (NUL, lone surrogates) is refused before routing, on any path.
      const unstorable = /%00|%ED%[AB]/i.test(path) && res.status === 400 &&
        body?.error?.code === "VALIDATION_ERROR";
      if (
        res.status >= 500 || !type.startsWith("application/json") || typeof body?.error?.code !== "string" ||
        (known.length === 0 && !unstorable && (res.status !== 404 || body.error.code !== "NOT_FOUND"))
      ) findings.push(`${p.method} ${path} -> ${res.status} ${type} ${text.slice(0, 200)}`);
      return true;
    }),
    { seed: SEED, numRuns: RUNS * 3, endOnFailure: true },
  );
  stats.findings += findings.length;
  assert.deepEqual(findings, [], `replay with FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}`);
}, { ignore: ONLY.length > 0, reason: "FUZZ_OPS runs only the operations it names" });

test("FUZZ summary: requests and outcomes by status", () => {
  const byStatus = [...stats.byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}: ${n}`);
  console.log(
    `contract fuzz: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}: ${stats.requests} requests ` +
      `(${stats.valid} generated valid, ${stats.invalid} hostile), ${stats.findings} findings, ` +
      `${stats.repairs} fixture repairs; by status ${byStatus.join(", ")}`,
  );
  const unreached = contract.operations.filter((op) => (!ONLY.length || ONLY.includes(op.id)))
    .filter((op) => !stats.successes.get(op.id)).map((op) => op.id);
  if (unreached.length) console.log(`contract fuzz: no 2xx this run for ${unreached.join(", ")}`);
  assert.ok(stats.requests > 0 || ONLY.length > 0);
});
