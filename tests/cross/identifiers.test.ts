import assert from "node:assert/strict";
import { call, test } from "../helpers/mod.ts";
import { create, setup } from "../tickets/_helpers.ts";

test("CONV-024 a human key PREFIX-n is accepted wherever a ticket reference is (PATCH /ticket, ledger, sprint assign)", async () => {
  const s = await setup({ reviewMode: "light" });
  const ticket = await create(s.agent.token);
  const key = `${s.prefix}-${ticket.number}`;
  const patched = await call("PATCH", "/ticket", {
    token: s.agent.token,
    body: { ticketId: key, title: "Renamed" },
  });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.body.data.id, ticket.id);
  const entry = await call("POST", "/ledger", {
    token: s.agent.token,
    body: { type: "FOUND", content: "Found it", ticketId: key },
  });
  assert.equal(entry.status, 201, entry.text);
  const sprint = await call("POST", "/sprint", { token: s.agent.token, body: { name: "S1" } });
  const assigned = await call("POST", "/sprint/assign", {
    token: s.agent.token,
    body: { ticketId: key, sprintId: sprint.body.data.id },
  });
  assert.equal(assigned.status, 200, assigned.text);
  assert.equal(assigned.body.data.ticketId, ticket.id);
});

test("CONV-025 a key resolves only within the caller's project", async () => {
  const a = await setup();
  const b = await setup();
  const ticketB = await create(b.agent.token);
  const foreignKey = `${b.prefix}-${ticketB.number}`;
  const res = await call("PATCH", "/ticket", {
    token: a.agent.token,
    body: { ticketId: foreignKey, title: "x" },
  });
  assert.equal(res.status, 404);
  const byId = await call("PATCH", "/ticket", {
    token: a.agent.token,
    body: { ticketId: ticketB.id, title: "x" },
  });
  assert.equal(byId.status, 404, "another project's UUID does not resolve either");
});

test("CONV-026 an unresolved key answers 404 with recovery RESOLVE_TICKET_REF", async () => {
  const s = await setup();
  const res = await call("PATCH", "/ticket", {
    token: s.agent.token,
    body: { ticketId: `${s.prefix}-999`, title: "x" },
  });
  assert.equal(res.status, 404);
  assert.equal(res.body.error.details.recovery.action, "RESOLVE_TICKET_REF");
});

test("CONV-031 the board's nextCursor, sent back unchanged as cursor, walks every ticket exactly once", async () => {
  const s = await setup();
  const ids = new Set<string>();
  for (let i = 0; i < 7; i++) ids.add((await create(s.agent.token)).id);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const page = await call("GET", `/board?limit=3${query}`, { token: s.agent.token });
    assert.equal(page.status, 200, page.text);
    for (const t of page.body.data.tickets) seen.push(t.id);
    cursor = page.body.data.nextCursor;
    if (cursor) assert.equal(typeof cursor, "string");
  } while (cursor);
  assert.equal(seen.length, 7);
  assert.deepEqual(new Set(seen), ids);
});

test("TKT-198 tickets carry no version number: concurrency is detected by status", async () => {
  const s = await setup();
  const ticket = await create(s.agent.token);
  const read = await call("GET", `/ticket?id=${ticket.id}`, { token: s.agent.token });
  assert.equal("version" in read.body.data, false);
  const claimed = await call("PATCH", "/ticket", {
    token: s.agent.token,
    body: { ticketId: ticket.id, assignToSelf: true },
  });
  assert.equal(claimed.status, 200, claimed.text);
  const first = await call("PATCH", "/ticket", {
    token: s.agent.token,
    body: { ticketId: ticket.id, status: "cancelled", expectedStatus: "backlog" },
  });
  assert.equal(first.status, 200, first.text);
  const stale = await call("PATCH", "/ticket", {
    token: s.agent.token,
    body: { ticketId: ticket.id, status: "cancelled", expectedStatus: "backlog" },
  });
  assert.equal(stale.status, 409);
  assert.equal(stale.body.error.details.observedStatus, "cancelled");
});

test("TKT-197 the POST /ticket/{id}/... variants that exist are documented, and take the internal id only", async () => {
  const doc = (await call("GET", "/openapi.json")).body;
  const variants = Object.keys(doc.paths).filter((p) =>
    p.startsWith("/ticket/{ticketId}/") && doc.paths[p].post
  );
  assert.deepEqual(variants.sort(), [
    "/ticket/{ticketId}/acknowledge",
    "/ticket/{ticketId}/approve",
    "/ticket/{ticketId}/artifacts",
  ]);
  for (const path of variants) {
    assert.ok(doc.paths[path].post.description.length > 40, `${path} is described`);
  }
  const s = await setup();
  const ticket = await create(s.agent.token);
  const byKey = await call("POST", `/ticket/${s.prefix}-${ticket.number}/acknowledge`, {
    token: s.agent.token,
    body: {},
  });
  assert.equal(byKey.status, 404);
});
