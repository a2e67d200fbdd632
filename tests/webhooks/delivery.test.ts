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
