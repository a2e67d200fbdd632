import assert from "node:assert/strict";
import { ADMIN_TOKEN, type ApiResponse, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { sql } from "kysely";
import { unstorableStrings } from "@/http/text-guard.ts";
import { setup, ticketBody } from "../tickets/_helpers.ts";

const NUL = "\u0000";
const LONE = "\ud800";

function assertRefused(res: ApiResponse, target: string, label: string): void {
  assert.equal(res.status, 400, `${label}: ${res.text}`);
  assert.equal(res.body.error.code, "VALIDATION_ERROR", label);
  assert.equal(res.body.error.details.target, target, label);
  assert.ok(Array.isArray(res.body.error.details.fields) && res.body.error.details.fields.length > 0, label);
}

async function count(table: "tickets" | "ledger_entries" | "threads" | "organizations", projectId?: string) {
  const { db } = await env();
  const where = projectId ? sql`where project_id = ${projectId}` : sql``;
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} ${where}`
    .execute(db);
  return rows[0]!.n;
}

for (const [name, bad] of [["NUL", NUL], ["lone surrogate", LONE]] as const) {
  test(`a ${name} in a JSON body string gives 400 VALIDATION_ERROR and stores nothing`, async () => {
    const { projectId, agent: a } = await setup();
    const before = {
      tickets: await count("tickets", projectId),
      ledger: await count("ledger_entries", projectId),
      threads: await count("threads", projectId),
    };

    const ticket = await call("POST", "/ticket", {
      token: a.token,
      body: ticketBody({ title: `Fix${bad}bug` }),
    });
    assertRefused(ticket, "json", "ticket title");
    assert.equal(ticket.body.error.details.fields[0].path, "title");

    const ledger = await call("POST", "/ledger", {
      token: a.token,
      body: { type: "FOUND", content: `cache ${bad} key` },
    });
    assertRefused(ledger, "json", "ledger content");

    const thread = await call("POST", "/thread", {
      token: a.token,
      body: { intent: `Discuss ${bad} locale` },
    });
    assertRefused(thread, "json", "thread intent");

    const brief = await call("PATCH", "/brief", { token: a.token, body: { scope: `x${bad}y` } });
    assertRefused(brief, "json", "brief scope");

    const batch = await call("POST", "/ticket/batch", {
      token: a.token,
      body: { tickets: [ticketBody(), ticketBody({ description: `deep${bad}` })] },
    });
    assertRefused(batch, "json", "ticket batch");
    assert.equal(batch.body.error.details.fields[0].path, "tickets.1.description");

    assert.deepEqual(before, {
      tickets: await count("tickets", projectId),
      ledger: await count("ledger_entries", projectId),
      threads: await count("threads", projectId),
    });
    const { db } = await env();
    const briefRow = await db.selectFrom("projects").select("brief").where("id", "=", projectId)
      .executeTakeFirst();
    assert.ok(!JSON.stringify(briefRow ?? {}).includes("x\\u0000y"));
  });

  test(`a ${name} in a JSON key, at any depth, gives 400`, async () => {
    const { projectId } = await newProject();
    const a = await pairAgent(projectId);
    const res = await call("PATCH", "/brief", {
      token: a.token,
      body: { custom: { nested: { [`k${bad}`]: 1 } } },
    });
    assertRefused(res, "json", "key");
    assert.equal(res.body.error.details.fields[0].code, "invalid_key");
  });

  test(`a ${name} in the operator API body gives 400 and no organization`, async () => {
    const before = await count("organizations");
    const res = await call("POST", "/admin/orgs", { token: ADMIN_TOKEN, body: { name: `Org${bad}` } });
    assertRefused(res, "json", "admin org name");
    assert.equal(await count("organizations"), before);
  });
}

test("a NUL in a query string (search q, name or value) gives 400", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const q = await call("GET", `/search?q=${encodeURIComponent(`abc${NUL}def`)}`, { token: a.token });
  assertRefused(q, "query", "search q");
  assert.equal(q.body.error.details.fields[0].path, "q");
  const name = await call("GET", `/ticket?st%00atus=todo`, { token: a.token });
  assertRefused(name, "query", "query name");
  const ok = await call("GET", `/search?q=${encodeURIComponent("abcdef")}`, { token: a.token });
  assert.equal(ok.status, 200, ok.text);
});

test("a NUL in a path parameter (ticket id, thread id) gives 400, on /api and /svc", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  for (const base of ["/api", "/svc"]) {
    const res = await call("GET", `${base}/ticket/PA-1%00`, { token: a.token });
    assertRefused(res, "param", `${base} ticket id`);
  }
  const patch = await call("PATCH", `/ticket/x%00y`, { token: a.token, body: { title: "t" } });
  assertRefused(patch, "param", "patch ticket id");
  const admin = await call("PATCH", `/admin/orgs/a%00b`, { token: ADMIN_TOKEN, body: { plan: "team" } });
  assertRefused(admin, "param", "admin org id");
});

test("text with ordinary control characters and paired surrogates is still accepted and stored as sent", async () => {
  const { agent: a } = await setup();
  const title = "Tab\there, emoji \ud83d\ude00 and é";
  const res = await call("POST", "/ticket", { token: a.token, body: ticketBody({ title }) });
  assert.equal(res.status, 201, res.text);
  const { db } = await env();
  const row = await db.selectFrom("tickets").select("title").where("id", "=", res.body.data.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.title, title);
});

test("malformed JSON still answers the route's own 400, and bodies nested 100000 deep do not overflow", async () => {
  const { projectId } = await newProject();
  const a = await pairAgent(projectId);
  const bad = await call("POST", "/ledger", {
    token: a.token,
    raw: '{"type": "FOUND", "content": "x"',
    headers: { "Content-Type": "application/json" },
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.code, "VALIDATION_ERROR");

  let deep: unknown = `end${NUL}`;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const fields = unstorableStrings(deep);
  assert.equal(fields.length, 1);
  assert.ok(fields[0]!.path.endsWith(".0.0"));
  assert.deepEqual(unstorableStrings({ a: ["fine", { b: "also fine" }] }), []);
});
