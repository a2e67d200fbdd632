import assert from "node:assert/strict";
import { createApp } from "@/app.ts";
import { countingDb } from "../helpers/counting-db.ts";
import { admin, env, newProject, test } from "../helpers/mod.ts";
import { insertTicket } from "../helpers/fixtures.ts";

/**
 * Issue 12: the write calls' round trips, pinned. Each call runs through an app whose database counts
 * the statements it sends (a Kysely plugin, as tests/context/statements.test.ts) and the transactions
 * it opens (each one adds BEGIN and COMMIT round trips). A change that adds a statement to one of these
 * calls fails here; one that removes some updates the pinned figures.
 */
async function countingApp() {
  const e = await env();
  const { db, counts } = countingDb(e.db);
  const app = createApp({ db, engine: e.engine, clock: e.clock, config: { ...e.config, testClock: false } });
  return async (token: string, method: string, path: string, body: unknown) => {
    counts.reset();
    const res = await app.fetch(
      new Request(`http://localhost:8787/api${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
    const json = await res.json();
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return { data: json.data, statements: counts.statements, transactions: counts.transactions };
  };
}

/** An API key on an enterprise project (the bench's setting: one admission statement per call). */
async function keyedProject() {
  const { projectId } = await newProject({ plan: "enterprise" });
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    name: "perf",
    agentName: "perf-agent",
    role: "generator",
  });
  return { projectId, token: key.key as string, agentId: key.agentId as string };
}

test("issue 12: POST /ledger, POST /claim, POST /release, PATCH /ticket moves run a pinned number of statements", async () => {
  const { projectId, token, agentId } = await keyedProject();
  // The bench's move: a ticket of the caller's, between backlog and claimed.
  const ticket = await insertTicket(projectId, { status: "backlog", assignee: agentId });
  const run = await countingApp();
  const seen: Record<string, { statements: number; transactions: number }> = {};
  const measure = async (name: string, method: string, path: string, body: unknown) => {
    const r = await run(token, method, path, body);
    seen[name] = { statements: r.statements, transactions: r.transactions };
    return r.data;
  };

  await measure("ledger", "POST", "/ledger", { type: "PROGRESS", content: "one" });
  await measure("ledger, ticket", "POST", "/ledger", {
    type: "PROGRESS",
    content: "two",
    ticketId: ticket.id,
  });
  const claimed = await measure("claim", "POST", "/claim", {
    files: ["src/a.ts", "src/b.ts"],
    ticketId: ticket.ref,
  });
  assert.deepEqual(claimed.claims.map((c: { file: string }) => c.file), ["src/a.ts", "src/b.ts"]);
  const renewed = await measure("claim renew", "POST", "/claim", { files: ["src/a.ts", "src/b.ts"] });
  assert.equal(renewed.renewed, true);
  const released = await measure("release", "POST", "/release", { files: ["src/a.ts"] });
  assert.deepEqual(released.released, ["src/a.ts", "src/b.ts"]);
  const moved = await measure("move", "PATCH", "/ticket", { ticketId: ticket.id, status: "claimed" });
  assert.equal(moved.status, "claimed");
  const back = await measure("move back", "PATCH", "/ticket", { ticketId: ticket.id, status: "backlog" });
  assert.equal(back.status, "backlog");

  // Admission is one statement on every call. Before issue 12's write work: ledger 3, ledger with a ticket
  // 4, claim 11 and release 9 in a transaction, move 7 in a transaction.
  const one = (statements: number) => ({ statements, transactions: 0 });
  assert.deepEqual(seen, {
    // Admission; the budget's hit, the entry and its event (one statement).
    "ledger": one(2),
    // Admission; the ticket reference; the write.
    "ledger, ticket": one(3),
    // Admission; then in one transaction (issue 24 point 5: claims of directories and symbols are exact
    // only when claim writes serialise): the project's claim lock; the budget's hit, the ticket, the
    // holders and the wait queue's state; the write's savepoint; every write.
    "claim": { statements: 5, transactions: 1 },
    "claim renew": { statements: 5, transactions: 1 },
    // Admission; then one transaction (issue 24: the release grants the claim wait queue's next requests
    // in it): the project's claim lock, the budget's hit with the release, its entry and events, the
    // waiting requests (none here).
    "release": { statements: 4, transactions: 1 },
    // Admission; the ticket with its project, assignee and test evidence; the move and its event.
    "move": one(3),
    "move back": one(3),
  });
});

test("PERF2-3 GET /me is one statement: its me_cache entry is read in the admission statement", async () => {
  const { token } = await keyedProject();
  const run = await countingApp();
  // The first call builds the cached body (its reads and the upsert); the second finds it fresh.
  const first = await run(token, "GET", "/me", undefined);
  const second = await run(token, "GET", "/me", undefined);
  assert.equal(second.statements, 1);
  assert.equal(second.transactions, 0);
  assert.equal(second.data.cachedAt, first.data.cachedAt);
  assert.deepEqual(second.data, first.data);
});
