import assert from "node:assert/strict";
import { admin, ADMIN_TOKEN, advanceClock, call, newProject, pairAgent, test } from "../helpers/mod.ts";

/** Operator contract: every collection lists (newest first, `limit`, `cursor`, `meta.nextCursor`) and reads one. */

test("GET /admin/orgs pages newest first with limit and cursor until meta.nextCursor is null", async () => {
  const made: string[] = [];
  for (let i = 0; i < 5; i++) {
    made.push((await admin("POST", "/orgs", { name: `Paged ${i}` })).id);
    await advanceClock(5); // distinct creation times, so "newest first" has one answer
  }
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await call("GET", `/admin/orgs?limit=2${cursor ? `&cursor=${cursor}` : ""}`, {
      token: ADMIN_TOKEN,
    });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.data.length <= 2);
    seen.push(...res.body.data.map((o: { id: string }) => o.id));
    cursor = res.body.meta.nextCursor;
    pages++;
  } while (cursor && pages < 100);
  // Newest first: the five just made lead, in reverse order of creation; nothing repeats.
  assert.deepEqual(seen.slice(0, 5), [...made].reverse());
  assert.equal(new Set(seen).size, seen.length);
  const one = await call("GET", `/admin/orgs/${made[0]}`, { token: ADMIN_TOKEN });
  assert.equal(one.status, 200);
  assert.deepEqual(
    {
      id: one.body.data.id,
      name: one.body.data.name,
      plan: one.body.data.plan,
      status: one.body.data.status,
    },
    { id: made[0], name: "Paged 0", plan: "free", status: "active" },
  );
});

test("list parameters: limit outside 1..100 or a malformed cursor is 400 VALIDATION_ERROR", async () => {
  for (
    const query of ["limit=0", "limit=101", "limit=abc", "limit=1.5", "cursor=%21%21%21", "cursor=bm9wZQ"]
  ) {
    const res = await call("GET", `/admin/users?${query}`, { token: ADMIN_TOKEN });
    assert.equal(res.status, 400, `${query}: ${res.text}`);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.ok(res.body.error.details.fields.length >= 1);
  }
});

test("project reads: project, members, agents and api keys, never a secret in clear", async () => {
  const { projectId } = await newProject({ password: "pairing-secret" });
  const user = await admin("POST", "/users", {
    email: `reader-${crypto.randomUUID()}@x.io`,
    password: "a-long-password",
    name: "Reader",
  });
  await admin("POST", `/projects/${projectId}/members`, { userId: user.id, role: "viewer" });
  const agent = await pairAgent(projectId, { name: "listed-agent", password: "pairing-secret" });
  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "key-bot", scopes: [] });

  const get = async (path: string) => {
    const res = await call("GET", `/admin${path}`, { token: ADMIN_TOKEN });
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    // No secret anywhere: not the key, not the pairing password, no hashes.
    for (const secret of [key.key, "pairing-secret", "a-long-password", "password_hash", "token_hash"]) {
      assert.ok(!res.text.includes(secret), `${path} leaks ${secret}`);
    }
    return res.body;
  };
  const project = (await get(`/projects/${projectId}`)).data;
  assert.equal(project.id, projectId);
  assert.equal(project.hasPassword, true);
  assert.ok((await get("/projects?limit=100")).data.some((p: { id: string }) => p.id === projectId));

  const members = (await get(`/projects/${projectId}/members`)).data;
  assert.deepEqual(members.map((m: { userId: string; role: string }) => [m.userId, m.role]), [[
    user.id,
    "viewer",
  ]]);
  assert.equal((await get(`/projects/${projectId}/members/${user.id}`)).data.email, user.email);
  assert.equal((await get(`/users/${user.id}`)).data.name, "Reader");

  const agents = (await get(`/projects/${projectId}/agents`)).data;
  assert.deepEqual(agents.map((a: { name: string }) => a.name).sort(), ["key-bot", "listed-agent"]);
  assert.equal((await get(`/projects/${projectId}/agents/${agent.agentId}`)).data.name, "listed-agent");

  const keys = (await get(`/projects/${projectId}/api-keys`)).data;
  assert.deepEqual(keys.map((k: { id: string; agentId: string }) => [k.id, k.agentId]), [[
    key.id,
    key.agentId,
  ]]);
  assert.equal("key" in keys[0], false);
  assert.equal((await get(`/projects/${projectId}/api-keys/${key.id}`)).data.revokedAt, null);
  // Another project's agent is not found under this one.
  const other = await newProject();
  const foreign = await call("GET", `/admin/projects/${other.projectId}/agents/${agent.agentId}`, {
    token: ADMIN_TOKEN,
  });
  assert.equal(foreign.status, 404);
  assert.equal(foreign.body.error.code, "NOT_FOUND");
});
