import assert from "node:assert/strict";
import { call, test } from "../helpers/mod.ts";
import { setup, ticketBody } from "../tickets/_helpers.ts";

test("LIMIT-001 range limits are inclusive: 1 and 200 title characters pass, 0 and 201 are refused", async () => {
  const s = await setup();
  for (
    const [title, status] of [["x", 201], ["t".repeat(200), 201], ["", 400], ["t".repeat(201), 400]] as const
  ) {
    const res = await call("POST", "/ticket", { token: s.agent.token, body: ticketBody({ title }) });
    assert.equal(res.status, status, `title of ${title.length}`);
  }
});

test("LIMIT-002 a value outside a limit answers 400 VALIDATION_ERROR naming the field", async () => {
  const s = await setup();
  const res = await call("POST", "/ticket", {
    token: s.agent.token,
    body: ticketBody({ tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }),
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
  assert.ok(JSON.stringify(res.body.error.details).includes("tags"));
});

test("LIMIT-003 limits apply the same through the /svc alias", async () => {
  const s = await setup();
  const res = await call("POST", "/svc/ticket", {
    token: s.agent.token,
    body: ticketBody({ title: "t".repeat(201) }),
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
});

test("LIMIT-004 lengths count Unicode code points, as documented", async () => {
  const s = await setup();
  const emoji = "\u{1F600}"; // one code point, two UTF-16 code units
  const ok = await call("POST", "/ticket", {
    token: s.agent.token,
    body: ticketBody({ title: emoji.repeat(200) }),
  });
  assert.equal(ok.status, 201, "200 emoji = 200 characters");
  const over = await call("POST", "/ticket", {
    token: s.agent.token,
    body: ticketBody({ title: emoji.repeat(201) }),
  });
  assert.equal(over.status, 400, "201 emoji = 201 characters");
  const doc = await call("GET", "/openapi.json");
  assert.match(doc.body.info.description, /Unicode code points/);
});

test("CONV-046 CONV-047 the document states the version scheme and the deprecation policy", async () => {
  const doc = await call("GET", "/openapi.json");
  assert.match(doc.body.info.version, /^\d+\.\d+\.\d+$/);
  assert.match(doc.body.info.description, /semantic versioning/);
  assert.match(doc.body.info.description, /Deprecation/);
  assert.match(doc.body.info.description, /Sunset/);
});

test("RATE-002 RATE-022 units are counted per agent and per project; every response carries X-RateLimit-Limit", async () => {
  const s = await setup({ plan: "free" });
  const other = await (await import("../helpers/mod.ts")).pairAgent(s.projectId);
  const a1 = await call("GET", "/me", { token: s.agent.token });
  const b1 = await call("GET", "/me", { token: other.token });
  assert.equal(a1.headers.get("X-RateLimit-Limit"), "500");
  assert.equal(b1.headers.get("X-RateLimit-Limit"), "500");
  const a2 = await call("GET", "/me", { token: s.agent.token });
  assert.equal(a2.body.meta.callsRemaining, a1.body.meta.callsRemaining - 1, "the agent's own window");
  assert.ok(
    b1.body.meta.callsRemaining > a2.body.meta.callsRemaining - 5,
    "another agent has its own window",
  );
});
