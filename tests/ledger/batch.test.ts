import assert from "node:assert/strict";
import { admin, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertTicket } from "../helpers/fixtures.ts";

async function batch(token: string, body: unknown) {
  return await call("POST", "/ledger/batch", { token, body });
}

test("LEDGER-039 POST /ledger/batch needs scope write:ledger", async () => {
  const { projectId } = await newProject();
  const key = await admin("POST", `/projects/${projectId}/api-keys`, {
    agentName: "ro",
    scopes: ["read:ledger"],
  });
  const res = await batch(key.key, { entries: [{ type: "FOUND", content: "x" }] });
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
});

test("LEDGER-040 LEDGER-044 LEDGER-045 a batch of 1 to 20 answers 200 { ok, results[], succeeded, failed }", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const one = await batch(a.token, { entries: [{ type: "FOUND", content: "x" }] });
  assert.equal(one.status, 200, one.text);
  assert.deepEqual(Object.keys(one.body.data).sort(), ["failed", "ok", "results", "succeeded"]);
  assert.equal(one.body.data.ok, true);
  assert.equal(one.body.data.results[0].ok, true);
  assert.match(one.body.data.results[0].id, /^[0-9a-f-]{36}$/);
  const twenty = Array.from({ length: 20 }, (_, i) => ({ type: "PROGRESS", content: `step ${i}` }));
  const full = await batch(a.token, { entries: twenty });
  assert.equal(full.status, 200);
  assert.equal(full.body.data.succeeded, 20);
  assert.equal(full.body.data.failed, 0);
});

test("LEDGER-041 a batch of more than 20 entries answers 422 with recovery SPLIT_BATCH", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const entries = Array.from({ length: 21 }, (_, i) => ({ type: "FOUND", content: `f ${i}` }));
  const res = await batch(a.token, { entries });
  assert.equal(res.status, 422);
  assert.equal(res.body.error.details.recovery.action, "SPLIT_BATCH");
  const { db } = await env();
  const written = await db.selectFrom("ledger_entries").select("id").where("project_id", "=", projectId)
    .where("type", "=", "FOUND").execute();
  assert.equal(written.length, 0);
});

test("LEDGER-042 an empty or malformed batch answers 400", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (const body of [{}, { entries: [] }, { entries: "x" }, { entries: [1, 2] }]) {
    const res = await batch(a.token, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("LEDGER-043 LEDGER-044 LEDGER-045 entries are processed in order and independently", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await batch(a.token, {
    entries: [
      { type: "FOUND", content: "first" },
      { type: "nope", content: "bad type" },
      { type: "DECISION", content: "no rationale" },
      { type: "FOUND", content: "x", labels: ["shiny"] },
      { type: "FOUND", content: "last" },
    ],
  });
  assert.equal(res.status, 200);
  const { results, ok, succeeded, failed } = res.body.data;
  assert.equal(ok, false);
  assert.equal(succeeded, 2);
  assert.equal(failed, 3);
  assert.deepEqual(results.map((r: { ok: boolean }) => r.ok), [true, false, false, false, true]);
  assert.equal(results[1].error.code, "VALIDATION_ERROR");
  assert.equal(results[2].error.code, "VALIDATION_ERROR");
  assert.equal(results[3].error.code, "INVALID");
  const { db } = await env();
  const rows = await db.selectFrom("ledger_entries").select(["id", "content"]).where(
    "project_id",
    "=",
    projectId,
  )
    .where("type", "=", "FOUND").orderBy("seq").execute();
  assert.deepEqual(rows.map((r) => r.content), ["first", "last"]);
  assert.equal(rows[0]!.id, results[0].id);
  assert.equal(rows[1]!.id, results[4].id);
});

test("LEDGER-046 a critical ALERT in a batch does not take the agent offline", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const res = await batch(a.token, { entries: [{ type: "ALERT", content: "bad", severity: "critical" }] });
  assert.equal(res.body.data.succeeded, 1);
  assert.equal((await call("GET", "/me", { token: a.token })).status, 200);
});

test("LEDGER-047 LEDGER-048 BLOCKED in a batch neither moves the ticket nor opens a thread", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const ticket = await insertTicket(projectId, { status: "in_progress", assignee: a.agentId });
  const res = await batch(a.token, {
    entries: [{ type: "BLOCKED", content: "stuck", ticketId: ticket.key, blockedByFile: "src/x.ts" }],
  });
  assert.equal(res.body.data.succeeded, 1, res.text);
  const { db } = await env();
  const t = await db.selectFrom("tickets").select("status").where("id", "=", ticket.id)
    .executeTakeFirstOrThrow();
  assert.equal(t.status, "in_progress");
  const threads = await db.selectFrom("threads").select("id").where("project_id", "=", projectId).execute();
  assert.equal(threads.length, 0);
});
