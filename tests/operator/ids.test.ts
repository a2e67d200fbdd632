import assert from "node:assert/strict";
import { sql } from "kysely";
import { adminApp } from "@/admin/app.ts";
import { admin, ADMIN_TOKEN, call, env, newProject, test } from "../helpers/mod.ts";

/**
 * Operator contract: a malformed id is `400 VALIDATION_ERROR`, an unknown one `404` (never a 500 from
 * PostgreSQL's uuid parser). Walks every `/admin` route with an id path parameter, read from the app
 * itself, so a route added without an entry here fails the first test.
 */

const MALFORMED = ["not-a-uuid", "123", "00000000-0000-0000-0000-00000000000g", "%27%20OR%201%3D1--"];
const UNKNOWN = "0f0e0d0c-0b0a-4999-8888-777766665555";

/** A body each route accepts, so that an unknown id reaches the lookup (and answers 404). */
const VALID_BODIES: Record<string, () => Promise<Record<string, unknown>>> = {
  "PATCH /orgs/:orgId": () => Promise.resolve({ plan: "team" }),
  "PATCH /projects/:projectId": () => Promise.resolve({ name: "Renamed" }),
  "POST /projects/:projectId/members": async () => {
    const user = await admin("POST", "/users", {
      email: `ids-${crypto.randomUUID()}@x.io`,
      password: "12345678",
      name: "Ids",
    });
    return { userId: user.id, role: "member" };
  },
  "POST /projects/:projectId/pairing-codes": () => Promise.resolve({ role: "generator" }),
  "POST /projects/:projectId/api-keys": () => Promise.resolve({ agentName: "ids-bot" }),
  // The undo routes take no body.
  "DELETE /projects/:projectId/api-keys/:keyId": () => Promise.resolve({}),
  "POST /projects/:projectId/agents/:agentId/revoke": () => Promise.resolve({}),
  "DELETE /sessions/:sessionId": () => Promise.resolve({}),
  "DELETE /projects/:projectId/members/:userId": () => Promise.resolve({}),
  // Webhook endpoints (issue 26), of a project and of an organisation.
  ...webhookBodies("projects/:projectId"),
  ...webhookBodies("orgs/:orgId"),
};

function webhookBodies(owner: string): Record<string, () => Promise<Record<string, unknown>>> {
  const none = () => Promise.resolve({});
  return {
    [`POST /${owner}/webhooks`]: () => Promise.resolve({ url: "https://hooks.example.com/x", events: ["*"] }),
    [`PATCH /${owner}/webhooks/:webhookId`]: () => Promise.resolve({ description: "renamed" }),
    [`DELETE /${owner}/webhooks/:webhookId`]: none,
    [`POST /${owner}/webhooks/:webhookId/disable`]: none,
    [`POST /${owner}/webhooks/:webhookId/enable`]: none,
    [`POST /${owner}/webhooks/:webhookId/rotate-secret`]: none,
    [`POST /${owner}/webhooks/:webhookId/deliveries/:deliveryId/redeliver`]: none,
  };
}

function idRoutes(): { method: string; path: string; params: string[] }[] {
  const seen = new Set<string>();
  const out: { method: string; path: string; params: string[] }[] = [];
  for (const r of adminApp().routes) {
    if (r.method === "ALL") continue;
    const params = [...r.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
    if (params.length === 0 || seen.has(`${r.method} ${r.path}`)) continue;
    seen.add(`${r.method} ${r.path}`);
    out.push({ method: r.method, path: r.path, params });
  }
  return out;
}

async function counts() {
  const { db } = await env();
  const row = await sql<Record<string, number>>`SELECT
      (SELECT count(*)::int FROM organizations) AS orgs,
      (SELECT count(*)::int FROM projects) AS projects,
      (SELECT count(*)::int FROM memberships) AS members,
      (SELECT count(*)::int FROM pairing_codes) AS codes,
      (SELECT count(*)::int FROM tokens) AS tokens,
      (SELECT count(*)::int FROM agents) AS agents,
      (SELECT count(*)::int FROM users) AS users`.execute(db);
  return row.rows[0];
}

test("every /admin route with an id parameter answers 400 VALIDATION_ERROR for a malformed id and 404 for an unknown one", async () => {
  const routes = idRoutes();
  assert.ok(routes.length >= 11, `expected the id routes of the operator API, got ${routes.length}`);
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    const body = route.method === "GET" ? undefined : VALID_BODIES[key];
    assert.ok(route.method === "GET" || body, `no valid body for ${key}: add one to VALID_BODIES`);
    for (const param of route.params) assert.match(param, /Id$/, `${key}: path parameter ${param}`);

    const before = await counts();
    for (const bad of MALFORMED) {
      const path = route.path.replace(/:[A-Za-z]+/g, bad);
      const res = await call(route.method, `/admin${path}`, { token: ADMIN_TOKEN, body: await body?.() });
      assert.equal(res.status, 400, `${key} with ${bad}: ${res.text}`);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.deepEqual(res.body.error.details.fields.map((f: { path: string }) => f.path), route.params);
    }
    const path = route.path.replace(/:[A-Za-z]+/g, UNKNOWN);
    const payload = await body?.();
    const afterBodies = await counts();
    const res = await call(route.method, `/admin${path}`, { token: ADMIN_TOKEN, body: payload });
    assert.equal(res.status, 404, `${key} with an unknown id: ${res.text}`);
    assert.equal(res.body.error.code, "NOT_FOUND");
    // Nothing was written by the refused calls (the users made for the member bodies aside).
    const after = await counts();
    assert.deepEqual(after, afterBodies);
    assert.deepEqual({ ...before, users: 0 }, { ...after, users: 0 });
  }
});

test("an id is well formed in any letter case: upper-case ids of existing records work", async () => {
  const { orgId, projectId } = await newProject();
  const patched = await call("PATCH", `/admin/orgs/${orgId.toUpperCase()}`, {
    token: ADMIN_TOKEN,
    body: { plan: "growth" },
  });
  assert.equal(patched.status, 200, patched.text);
  assert.equal(patched.body.data.id, orgId);
  assert.equal(patched.body.data.plan, "growth");
  const code = await call("POST", `/admin/projects/${projectId.toUpperCase()}/pairing-codes`, {
    token: ADMIN_TOKEN,
    body: {},
  });
  assert.equal(code.status, 201, code.text);
});

test("ids inside bodies: a malformed orgId or userId is 400 VALIDATION_ERROR naming the field, an unknown one 404", async () => {
  const before = await counts();
  for (const bad of ["nope", "", "1234", "0f0e0d0c-0b0a-4999-8888-77776666555Z"]) {
    const project = await call("POST", "/admin/projects", {
      token: ADMIN_TOKEN,
      body: { orgId: bad, name: "P", ticketPrefix: "IDS" },
    });
    assert.equal(project.status, 400, project.text);
    assert.equal(project.body.error.code, "VALIDATION_ERROR");
    assert.deepEqual(project.body.error.details.fields.map((f: { path: string }) => f.path), ["orgId"]);
  }
  const unknownOrg = await call("POST", "/admin/projects", {
    token: ADMIN_TOKEN,
    body: { orgId: UNKNOWN, name: "P", ticketPrefix: "IDS" },
  });
  assert.equal(unknownOrg.status, 404, unknownOrg.text);
  assert.equal(unknownOrg.body.error.code, "NOT_FOUND");
  assert.deepEqual(await counts(), before);

  const { projectId } = await newProject();
  for (const bad of ["nope", 42, null]) {
    const member = await call("POST", `/admin/projects/${projectId}/members`, {
      token: ADMIN_TOKEN,
      body: { userId: bad, role: "member" },
    });
    assert.equal(member.status, 400, member.text);
    assert.equal(member.body.error.code, "VALIDATION_ERROR");
    assert.deepEqual(member.body.error.details.fields.map((f: { path: string }) => f.path), ["userId"]);
  }
  const unknownUser = await call("POST", `/admin/projects/${projectId}/members`, {
    token: ADMIN_TOKEN,
    body: { userId: UNKNOWN, role: "member" },
  });
  assert.equal(unknownUser.status, 404, unknownUser.text);
  assert.equal(unknownUser.body.error.code, "NOT_FOUND");
  const { db } = await env();
  const members = await db.selectFrom("memberships").select("user_id").where("project_id", "=", projectId)
    .execute();
  assert.deepEqual(members, []);
});

test("nested reads: a known project with an unknown member, agent or key id is 404; a malformed one 400 naming it", async () => {
  const { projectId } = await newProject();
  for (const sub of ["members", "agents", "api-keys"]) {
    const unknown = await call("GET", `/admin/projects/${projectId}/${sub}/${UNKNOWN}`, {
      token: ADMIN_TOKEN,
    });
    assert.equal(unknown.status, 404, `${sub}: ${unknown.text}`);
    assert.equal(unknown.body.error.code, "NOT_FOUND");
    const bad = await call("GET", `/admin/projects/${projectId}/${sub}/x1`, { token: ADMIN_TOKEN });
    assert.equal(bad.status, 400, `${sub}: ${bad.text}`);
    assert.equal(bad.body.error.code, "VALIDATION_ERROR");
    assert.equal(bad.body.error.details.fields.length, 1);
    assert.match(bad.body.error.details.fields[0].path, /Id$/);
  }
});
