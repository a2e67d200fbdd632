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

/** Each body or query that the spec lets carry a ticket reference, called once with the key and once with the id. */
const BODY_AND_QUERY_REFS: {
  name: string;
  call: (s: Awaited<ReturnType<typeof setup>>, ref: string, ticket: { id: string }) => Promise<number>;
  ok: number;
}[] = [
  {
    name: "POST /begin",
    ok: 200,
    call: async (s, ref) =>
      (await call("POST", "/begin", {
        token: s.agent.token,
        body: { ticketId: ref, files: [`src/${crypto.randomUUID().slice(0, 6)}.ts`] },
      })).status,
  },
  {
    name: "POST /claim",
    ok: 200,
    call: async (s, ref) =>
      (await call("POST", "/claim", {
        token: s.agent.token,
        body: {
          files: [`src/${crypto.randomUUID().slice(0, 6)}.ts`],
          ticketId: ref,
          sessionId: s.agent.sessionId,
        },
      })).status,
  },
  {
    name: "POST /ledger/batch",
    ok: 200,
    call: async (s, ref) =>
      (await call("POST", "/ledger/batch", {
        token: s.agent.token,
        body: { entries: [{ type: "FOUND", content: "Found it", ticketId: ref }] },
      })).status,
  },
  {
    name: "GET /ledger?ticketId",
    ok: 200,
    call: async (s, ref) =>
      (await call("GET", `/ledger?ticketId=${encodeURIComponent(ref)}`, { token: s.agent.token })).status,
  },
  {
    name: "POST /thread",
    ok: 201,
    call: async (s, ref) =>
      (await call("POST", "/thread", {
        token: s.agent.token,
        body: { intent: "Rework the login form", ticketId: ref },
      })).status,
  },
  {
    name: "DELETE /ticket",
    ok: 200,
    call: async (s, ref) =>
      (await call("DELETE", "/ticket", { token: s.agent.token, body: { ticketId: ref } })).status,
  },
];

for (const endpoint of BODY_AND_QUERY_REFS) {
  test(`CONV-023/CONV-024 ${endpoint.name} takes the ticket's id and its key alike`, async () => {
    const s = await setup({ reviewMode: "light" });
    for (const form of ["id", "key"] as const) {
      const ticket = await create(s.agent.token);
      const ref = form === "id" ? ticket.id : `${s.prefix}-${ticket.number}`;
      assert.equal(await endpoint.call(s, ref, ticket), endpoint.ok, `${endpoint.name} with the ${form}`);
    }
  });
}

test("CONV-023/CONV-024 POST /handoff takes the ticket's key as well as its id", async () => {
  for (const form of ["id", "key"] as const) {
    const s = await setup({ reviewMode: "light" });
    const ticket = await create(s.agent.token);
    const ref = form === "id" ? ticket.id : `${s.prefix}-${ticket.number}`;
    const begun = await call("POST", "/begin", {
      token: s.agent.token,
      body: { ticketId: ref, files: ["src/app.ts"] },
    });
    assert.equal(begun.status, 200, begun.text);
    for (const type of ["PROGRESS", "TESTED"]) {
      const entry = await call("POST", "/ledger", {
        token: s.agent.token,
        body: { type, content: "Built and tested it", ticketId: ref, sessionId: s.agent.sessionId },
      });
      assert.equal(entry.status, 201, entry.text);
    }
    const res = await call("POST", "/handoff", {
      token: s.agent.token,
      body: {
        moduleName: "app",
        summary: "Done",
        sessionId: s.agent.sessionId,
        ticketId: ref,
        testResults: "ok",
      },
    });
    assert.equal(res.status, 200, `${form}: ${res.text}`);
  }
});

test("CONV-028 GET /ticket reads by key and by id; an id that is a key is refused with a pointer to `key`", async () => {
  const s = await setup();
  const ticket = await create(s.agent.token);
  const key = `${s.prefix}-${ticket.number}`;
  const byKey = await call("GET", `/ticket?key=${key}`, { token: s.agent.token });
  const byId = await call("GET", `/ticket?id=${ticket.id}`, { token: s.agent.token });
  assert.equal(byKey.status, 200, byKey.text);
  assert.equal(byId.status, 200, byId.text);
  assert.equal(byKey.body.data.id, byId.body.data.id);
  const keyAsId = await call("GET", `/ticket?id=${key}`, { token: s.agent.token });
  assert.equal(keyAsId.status, 400, keyAsId.text);
  assert.match(keyAsId.text, /key=/, "the refusal says where a key goes");
});

/** Every path that carries a ticket, with the key in it: 404 whose recovery reads the ticket by key. */
const PATH_REFS: [string, string, unknown?][] = [
  ["POST", "/ticket/{ref}/acknowledge", {}],
  ["POST", "/ticket/{ref}/approve", {}],
  ["POST", "/ticket/{ref}/artifacts", { type: "branch", url: "https://git.example/web/tree/login" }],
  ["GET", "/ticket/{ref}/artifacts"],
  ["PATCH", "/ticket/{ref}/artifacts/00000000-0000-4000-8000-000000000000", { status: "merged" }],
  ["GET", "/ticket/{ref}/qa"],
];

test("CONV-027 a key in a ticket path answers 404 whose recovery reads the ticket by key, never suggesting the key", async () => {
  const s = await setup({ role: "orchestrator" });
  const ticket = await create(s.agent.token);
  const key = `${s.prefix}-${ticket.number}`;
  for (const [method, template, body] of PATH_REFS) {
    const res = await call(method, template.replace("{ref}", key), { token: s.agent.token, body });
    assert.equal(res.status, 404, `${method} ${template}: ${res.text}`);
    assert.equal(res.body.error.code, "TICKET_NOT_FOUND", `${method} ${template}`);
    const recovery = res.body.error.details.recovery;
    assert.equal(recovery.action, "RESOLVE_TICKET_REF");
    assert.equal(recovery.endpoint, `GET /ticket?key=${key}`, `${method} ${template}`);
    assert.doesNotMatch(recovery.hint, /or its <PREFIX>-<number> key/, `${method} ${template}`);
    // An unknown id: the hint names the id, not the key, as what the path takes.
    const unknown = await call(method, template.replace("{ref}", crypto.randomUUID()), {
      token: s.agent.token,
      body,
    });
    assert.equal(unknown.status, 404, `${method} ${template}: ${unknown.text}`);
    assert.doesNotMatch(unknown.body.error.details.recovery.hint, /or its <PREFIX>-<number> key/);
    // The id itself resolves (what follows may still refuse, e.g. approving a ticket in backlog).
    const byId = await call(method, template.replace("{ref}", ticket.id), { token: s.agent.token, body });
    assert.notEqual(
      byId.body?.error?.code,
      "TICKET_NOT_FOUND",
      `${method} ${template} with the id: ${byId.text}`,
    );
  }
});
