import assert from "node:assert/strict";
import { test } from "../helpers/mod.ts";
import { systemClock } from "@/clock.ts";
import { pruneTables } from "@/domain/maintenance/prune.ts";
import { callOn } from "../helpers/mod.ts";
import { adminOn, deliverUntil, hookEnv, ledger, projectWithAgent, receiver, settled } from "./helpers.ts";

const advance = (e: Awaited<ReturnType<typeof hookEnv>>, ms: number) =>
  adminOn(e, "POST", "/clock", { advanceMs: ms });

test("PUSH-3 a receiver that fails, then succeeds: retried after the backoff, the attempts listed with their response codes", async () => {
  const e = await hookEnv();
  const { projectId, token } = await projectWithAgent(e, "WOA");
  const rx = receiver((n) => (n <= 2 ? 500 : 200));
  try {
    const hook = await adminOn(e, "POST", `/projects/${projectId}/webhooks`, { url: rx.url, events: ["*"] });
    await ledger(e, token, "retry me");
    await deliverUntil(e, () => rx.calls() >= 1);
    await settled(e);
    await deliverUntil(e, () => false, 3);
    assert.equal(rx.calls(), 1, "not retried before the backoff");
    await advance(e, 7_000);
    await deliverUntil(e, () => rx.calls() >= 2);
    await settled(e);
    await advance(e, 6.5 * 60_000);
    await deliverUntil(e, () => rx.got.length >= 1);
    assert.equal(rx.calls(), 3);
    await settled(e);
    const list = await adminOn(e, "GET", `/projects/${projectId}/webhooks/${hook.id}/deliveries`);
    assert.equal(list.length, 1);
    assert.equal(list[0].status, "delivered");
    assert.deepEqual(list[0].attemptLog.map((a: { status: number }) => a.status), [500, 500, 200]);
    // Never sent again once it got a 2xx, unless by hand.
    await advance(e, 3600_000);
    await deliverUntil(e, () => false, 3);
    assert.equal(rx.calls(), 3);
    await adminOn(e, "POST", `/projects/${projectId}/webhooks/${hook.id}/deliveries/${list[0].id}/redeliver`);
    await deliverUntil(e, () => rx.got.length >= 2);
    assert.equal(rx.got[1]!.headers.get("webhook-id"), rx.got[0]!.headers.get("webhook-id"));
  } finally {
    await rx.close();
  }
});

test("PUSH-3 deliveries go out in seq order per endpoint: a failing one holds back the later ones", async () => {
  const e = await hookEnv();
  const { projectId, token } = await projectWithAgent(e, "WOB");
  const rx = receiver((n) => (n === 1 ? 503 : 204));
  try {
    await adminOn(e, "POST", `/projects/${projectId}/webhooks`, { url: rx.url, events: ["ledger.*"] });
    for (const content of ["one", "two", "three"]) await ledger(e, token, content);
    await deliverUntil(e, () => rx.calls() >= 1);
    await settled(e);
    await deliverUntil(e, () => false, 3);
    assert.equal(rx.calls(), 1, "the later deliveries wait for the first");
    await advance(e, 7_000);
    await deliverUntil(e, () => rx.got.length >= 3);
    const seqs = rx.got.map((r) => r.json.data.seq as number);
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
    assert.equal(new Set(seqs).size, 3);
  } finally {
    await rx.close();
  }
});

test("PUSH-3 a 410 disables the endpoint with a webhook.disabled event; events raised while disabled are not queued", async () => {
  const e = await hookEnv();
  const { projectId, token } = await projectWithAgent(e, "WOC");
  const rx = receiver(() => 410);
  try {
    const hook = await adminOn(e, "POST", `/projects/${projectId}/webhooks`, {
      url: rx.url,
      events: ["ledger.*"],
    });
    await ledger(e, token, "gone");
    await deliverUntil(e, () => rx.calls() >= 1);
    await settled(e);
    const shown = await adminOn(e, "GET", `/projects/${projectId}/webhooks/${hook.id}`);
    assert.equal(shown.enabled, false);
    assert.equal(shown.disabledReason, "gone");
    const feed = await callOn(e, "GET", "/events?kinds=webhook.", { token });
    assert.equal(feed.body.data.events.length, 1);
    assert.equal(feed.body.data.events[0].kind, "webhook.disabled");
    assert.equal(feed.body.data.events[0].data.reason, "gone");
    await ledger(e, token, "while disabled");
    const list = await adminOn(e, "GET", `/projects/${projectId}/webhooks/${hook.id}/deliveries`);
    assert.equal(list.length, 1);
  } finally {
    await rx.close();
  }
});

test("PUSH-3 an endpoint failing for 3 days in a row is disabled with a webhook.disabled event", async () => {
  const e = await hookEnv();
  const { projectId, token } = await projectWithAgent(e, "WOD");
  const rx = receiver(() => 500);
  try {
    const hook = await adminOn(e, "POST", `/projects/${projectId}/webhooks`, {
      url: rx.url,
      events: ["ledger.*"],
    });
    await ledger(e, token, "a");
    await deliverUntil(e, () => rx.calls() >= 1);
    await settled(e);
    await advance(e, 2 * 86400_000);
    await deliverUntil(e, () => rx.calls() >= 2);
    await settled(e);
    assert.equal((await adminOn(e, "GET", `/projects/${projectId}/webhooks/${hook.id}`)).enabled, true);
    await advance(e, 86400_000 + 60_000);
    await deliverUntil(e, () => rx.calls() >= 3);
    await settled(e);
    const shown = await adminOn(e, "GET", `/projects/${projectId}/webhooks/${hook.id}`);
    assert.equal(shown.enabled, false);
    assert.equal(shown.disabledReason, "failing");
    const feed = await callOn(e, "GET", "/events?kinds=webhook.", { token });
    assert.equal(feed.body.data.events.at(-1).kind, "webhook.disabled");
  } finally {
    await rx.close();
  }
});

test("PUSH-3 the outbox is pruned with the other tables: sent deliveries after a week, pending ones never", async () => {
  const e = await hookEnv();
  const { projectId, token } = await projectWithAgent(e, "WOE");
  const rx = receiver((n) => (n === 1 ? 204 : 500));
  try {
    const hook = await adminOn(e, "POST", `/projects/${projectId}/webhooks`, {
      url: rx.url,
      events: ["ledger.*"],
    });
    await ledger(e, token, "sent");
    await deliverUntil(e, () => rx.calls() >= 1);
    await settled(e);
    await ledger(e, token, "owed");
    await deliverUntil(e, () => rx.calls() >= 2);
    await settled(e);
    const later = systemClock();
    later.advance(e.clock.offsetMs() + 8 * 86400_000);
    await settled(e);
    const counts = await pruneTables({ db: e.db, clock: later });
    assert.ok(counts.webhookDeliveries >= 1);
    const left = await adminOn(e, "GET", `/projects/${projectId}/webhooks/${hook.id}/deliveries`);
    assert.deepEqual(left.map((d: { status: string }) => d.status), ["pending"]);
  } finally {
    await rx.close();
  }
});
