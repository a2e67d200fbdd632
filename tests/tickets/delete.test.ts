import assert from "node:assert/strict";
import { call, env, pairAgent, test } from "../helpers/mod.ts";
import { insertClaim } from "../helpers/fixtures.ts";
import { create, setup } from "./_helpers.ts";

async function del(token: string, ticketId: string) {
  return await call("DELETE", "/ticket", { token, body: { ticketId } });
}

async function exists(id: string): Promise<boolean> {
  const { db } = await env();
  return (await db.selectFrom("tickets").select("id").where("id", "=", id).executeTakeFirst()) !== undefined;
}

test("TKT-169 TKT-171 DELETE /ticket takes { ticketId } and answers { deleted: { id, number, ticketRef, title } }", async () => {
  const s = await setup();
  const t = await create(s.agent.token, { title: "To delete" });
  const res = await del(s.agent.token, t.id);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data, {
    deleted: { id: t.id, number: t.number, ticketRef: t.ticketRef, title: "To delete" },
  });
  assert.equal(await exists(t.id), false);
  const byKey = await create(s.agent.token);
  assert.equal((await del(s.agent.token, byKey.ticketRef)).status, 200);
  const missing = await call("DELETE", "/ticket", { token: s.agent.token, body: {} });
  assert.equal(missing.status, 400);
});

test("TKT-170 only the creator or an orchestrator may delete; anyone else gets 403", async () => {
  const s = await setup();
  const other = await pairAgent(s.projectId);
  const orchestrator = await pairAgent(s.projectId, { role: "orchestrator" });
  const t = await create(s.agent.token);
  const refused = await del(other.token, t.id);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.error.code, "FORBIDDEN");
  assert.equal(await exists(t.id), true);
  assert.equal((await del(orchestrator.token, t.id)).status, 200);
});

test("TKT-172 deleting a ticket in_progress, in_review or qa answers 400 and deletes nothing", async () => {
  const s = await setup();
  const { db } = await env();
  for (const status of ["in_progress", "in_review", "qa"]) {
    const t = await create(s.agent.token);
    await db.updateTable("tickets").set({ status }).where("id", "=", t.id).execute();
    const res = await del(s.agent.token, t.id);
    assert.equal(res.status, 400, status);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(res.body.error.details.status, status);
    assert.ok(res.body.error.details.recovery.action);
    assert.equal(await exists(t.id), true);
  }
  const done = await create(s.agent.token);
  await db.updateTable("tickets").set({ status: "done" }).where("id", "=", done.id).execute();
  assert.equal((await del(s.agent.token, done.id)).status, 200);
});

test("TKT-173 deleting a ticket with open claims answers 400 and deletes nothing", async () => {
  const s = await setup();
  const t = await create(s.agent.token);
  const { db } = await env();
  const claimId = await insertClaim(s.projectId, {
    agentId: s.agent.agentId,
    ticketId: t.id,
    files: ["src/x.ts"],
    ttlMs: 600_000,
  });
  const res = await del(s.agent.token, t.id);
  assert.equal(res.status, 400);
  assert.equal(res.body.error.details.openClaims[0].file, "src/x.ts");
  assert.equal(await exists(t.id), true);
  await db.updateTable("claims").set({ released_at: new Date() }).where("id", "=", claimId).execute();
  assert.equal((await del(s.agent.token, t.id)).status, 200);
});

test("TKT-174 DELETE /ticket on an unknown ticket answers 404", async () => {
  const s = await setup();
  const other = await setup();
  const foreign = await create(other.agent.token);
  for (const ref of [crypto.randomUUID(), `${s.prefix}-42`, foreign.id]) {
    const res = await del(s.agent.token, ref);
    assert.equal(res.status, 404, ref);
    assert.equal(res.body.error.code, "TICKET_NOT_FOUND");
  }
  assert.equal(await exists(foreign.id), true);
});

test("RATE-008 DELETE /ticket costs 3 units", async () => {
  const s = await setup({ plan: "free" });
  const a = await create(s.agent.token);
  const b = await create(s.agent.token);
  const x = await del(s.agent.token, a.id);
  const y = await del(s.agent.token, b.id);
  assert.equal(x.body.meta.callsRemaining - y.body.meta.callsRemaining, 3);
});

test("TKT-100 deleting needs write:ticket", async () => {
  const s = await setup();
  const t = await create(s.agent.token);
  const key = await call("POST", `/admin/projects/${s.projectId}/api-keys`, {
    token: "test-admin-token",
    body: { name: "r", agentName: "reader-del", role: "orchestrator", scopes: ["read:board"] },
  });
  const res = await del(key.body.data.key, t.id);
  assert.equal(res.status, 403);
  assert.equal(res.body.error.code, "FORBIDDEN");
  assert.equal(await exists(t.id), true);
});
