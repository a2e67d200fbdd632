import assert from "node:assert/strict";
import { call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { insertClaim, insertLedgerEntry } from "../helpers/fixtures.ts";
import { insertNotification, minutesAgo, now } from "./fixtures.ts";

test("CONV-009 CONV-010 meta.context is absent when there is nothing to report", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  for (const path of ["/me", "/context", "/events"]) {
    const res = await call("GET", path, { token: agent.token });
    assert.equal(res.status, 200, path);
    assert.equal("context" in res.body.meta, false, path);
  }
});

test("CONV-009 CONV-010 meta.context reports unread notifications and claims on any call", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const base = await now();
  await insertNotification(projectId, agent.agentId, "@you look");
  await insertClaim(projectId, {
    agentId: agent.agentId,
    files: ["src/soon.ts"],
    expiresAt: new Date(base.getTime() + 2 * 60_000),
  });
  await insertClaim(projectId, {
    agentId: agent.agentId,
    files: ["src/old.ts"],
    expiresAt: minutesAgo(base, 1),
  });
  const res = await call("GET", "/me", { token: agent.token });
  assert.deepEqual(res.body.meta.context, { unreadNotifications: 1, expiringClaims: 1, expiredClaims: 1 });
});

test("CONV-010 meta.context warns of ledger silence 5 minutes before LEDGER_STALE, then marks it stale", async () => {
  const silentFor = async (minutes: number) => {
    const { projectId } = await newProject();
    const agent = await pairAgent(projectId);
    const base = await now();
    await insertClaim(projectId, {
      agentId: agent.agentId,
      files: ["src/held.ts"],
      claimedAt: minutesAgo(base, 60),
      expiresAt: new Date(base.getTime() + 3600_000),
    });
    await insertLedgerEntry(projectId, {
      type: "PROGRESS",
      agentId: agent.agentId,
      createdAt: minutesAgo(base, minutes),
    });
    return (await call("GET", "/me", { token: agent.token })).body.meta.context;
  };
  assert.equal(await silentFor(9), undefined);
  assert.deepEqual((await silentFor(11)).ledgerStale, {
    minutesSilent: 11,
    thresholdMinutes: 15,
    stale: false,
  });
  assert.equal((await silentFor(17)).ledgerStale.stale, true);
});

test("CONV-011 GET /context meta.responseBytes equals the serialized size of data", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  await insertLedgerEntry(projectId, {
    type: "PROGRESS",
    agentId: agent.agentId,
    content: "ünïcødé ✓ content",
  });
  for (const q of ["", "?compact=true"]) {
    const res = await call("GET", `/context${q}`, { token: agent.token });
    const bytes = new TextEncoder().encode(JSON.stringify(res.body.data)).length;
    assert.equal(res.body.meta.responseBytes, bytes);
  }
  const other = await call("GET", "/me", { token: agent.token });
  assert.equal("responseBytes" in other.body.meta, false);
});

test("CONV-012 meta.refreshedToken appears on GET /context only within 30 minutes of the 7-day limit", async () => {
  const { projectId } = await newProject();
  const agent = await pairAgent(projectId);
  const early = await call("GET", "/context", { token: agent.token });
  assert.equal("refreshedToken" in early.body.meta, false);
  const { db } = await env();
  const soon = new Date((await now()).getTime() + 20 * 60_000);
  await db.updateTable("tokens").set({ expires_at: soon, idle_expires_at: soon })
    .where("session_id", "=", agent.sessionId).where("revoked_at", "is", null).execute();
  const late = await call("GET", "/context", { token: agent.token });
  assert.equal(late.status, 200);
  assert.match(late.body.meta.refreshedToken, /^svc_sess_/);
  const me = await call("GET", "/me", { token: agent.token });
  assert.equal("refreshedToken" in me.body.meta, false);
  const fresh = await call("GET", "/context", { token: late.body.meta.refreshedToken });
  assert.equal(fresh.status, 200);
  assert.equal("refreshedToken" in fresh.body.meta, false);
});

test("CTX-055 the webhook delivery body is documented in the OpenAPI document", async () => {
  const res = await call("GET", "/openapi.json");
  const schema = res.body.components.schemas.WebhookDelivery;
  assert.ok(schema, "WebhookDelivery schema is published");
  // Standard Webhooks body (issue 26): `{ type, timestamp, data }`, data the event plus projectId.
  assert.deepEqual(Object.keys(schema.properties).sort(), ["data", "timestamp", "type"]);
  assert.match(JSON.stringify(schema), /partnerManagedSessionId/);
  const events = res.body.paths["/events"].get;
  assert.match(events.description, /partnerManagedSessionId/);
  assert.match(events.description, /exactly once/);
});
