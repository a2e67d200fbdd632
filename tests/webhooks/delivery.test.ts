import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { test } from "../helpers/mod.ts";
import { callOn } from "../helpers/mod.ts";
import { adminOn, deliverUntil, hookEnv, ledger, projectWithAgent, receiver } from "./helpers.ts";

test("PUSH-2 a delivery follows Standard Webhooks: the standardwebhooks package verifies it; data is the event of GET /events plus projectId", async () => {
  const e = await hookEnv();
  const { projectId, token } = await projectWithAgent(e, "WHA");
  const rx = receiver();
  try {
    const hook = await adminOn(e, "POST", `/projects/${projectId}/webhooks`, {
      url: rx.url,
      events: ["ledger.*"],
      description: "ci bot",
    });
    assert.match(hook.secret, /^whsec_/);
    await ledger(e, token, "first");
    await deliverUntil(e, () => rx.got.length >= 1);
    assert.equal(rx.got.length, 1);
    const got = rx.got[0]!;
    const verified = new Webhook(hook.secret).verify(got.body, Object.fromEntries(got.headers)) as Record<
      string,
      unknown
    >;
    assert.equal(verified.type, "ledger.appended");
    const feed = await callOn(e, "GET", "/events?kinds=ledger.", { token });
    const event = feed.body.data.events[0];
    assert.deepEqual(got.json.data, { ...event, projectId });
    assert.equal(got.json.timestamp, event.createdAt);
    assert.match(got.headers.get("webhook-id")!, /^msg_/);
    // A kind outside the endpoint's list is not delivered.
    await callOn(e, "POST", "/tickets", { token, body: { title: "not delivered" } });
    await deliverUntil(e, () => false, 3);
    assert.equal(rx.got.length, 1);
  } finally {
    await rx.close();
  }
});

test("PUSH-2 after a secret rotation each delivery carries two signatures, each verified with its secret", async () => {
  const e = await hookEnv();
  const { projectId, token } = await projectWithAgent(e, "WHB");
  const rx = receiver();
  try {
    const hook = await adminOn(e, "POST", `/projects/${projectId}/webhooks`, { url: rx.url, events: ["*"] });
    const rotated = await adminOn(e, "POST", `/projects/${projectId}/webhooks/${hook.id}/rotate-secret`);
    assert.notEqual(rotated.secret, hook.secret);
    assert.ok(rotated.previousSecretUntil);
    const shown = await adminOn(e, "GET", `/projects/${projectId}/webhooks/${hook.id}`);
    assert.equal(shown.secret, undefined);
    await ledger(e, token, "rotated");
    await deliverUntil(e, () => rx.got.length >= 1);
    const got = rx.got[0]!;
    const signatures = got.headers.get("webhook-signature")!.split(" ");
    assert.equal(signatures.length, 2);
    const headers = Object.fromEntries(got.headers);
    for (const secret of [hook.secret, rotated.secret]) {
      assert.ok(new Webhook(secret).verify(got.body, headers));
    }
    // Each secret verifies on its own: the header with only the other signature fails.
    assert.throws(() =>
      new Webhook(hook.secret).verify(got.body, { ...headers, "webhook-signature": signatures[0]! })
    );
  } finally {
    await rx.close();
  }
});

test("PUSH-2 a partner endpoint of the organisation receives the events of its agents that gave a partnerManagedSessionId, with it", async () => {
  const e = await hookEnv();
  const { orgId, projectId, token } = await projectWithAgent(e, "WHC");
  const rx = receiver();
  try {
    await adminOn(e, "POST", `/orgs/${orgId}/webhooks`, { url: rx.url, events: ["ledger.appended"] });
    const code = await adminOn(e, "POST", `/projects/${projectId}/pairing-codes`, { role: "generator" });
    const paired = await callOn(e, "POST", "/pair/connect", {
      body: {
        code: code.code,
        agentName: "partnered",
        platform: "claude-code",
        partnerManagedSessionId: "ext-7",
      },
      headers: { "X-Forwarded-For": "10.9.8.7" },
    });
    assert.equal(paired.status, 200, paired.text);
    await ledger(e, token, "no partner session: not for the partner endpoint");
    await ledger(e, paired.body.data.sessionToken, "partnered");
    const feed = await callOn(e, "GET", "/events?kinds=ledger.appended", { token });
    const partnered = feed.body.data.events.filter((ev: { agentId: string }) =>
      ev.agentId === paired.body.data.agent.id
    );
    assert.ok(partnered.length >= 1);
    await deliverUntil(e, () => rx.got.length >= partnered.length);
    await deliverUntil(e, () => false, 3);
    // Only the partnered agent's events (pairing wrote some too), each with its partnerManagedSessionId.
    assert.deepEqual(rx.got.map((r) => r.json.data.seq), partnered.map((ev: { seq: number }) => ev.seq));
    for (const r of rx.got) {
      assert.equal(r.json.data.partnerManagedSessionId, "ext-7");
      assert.equal(r.json.data.projectId, projectId);
    }
  } finally {
    await rx.close();
  }
});
