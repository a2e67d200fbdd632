import assert from "node:assert/strict";
import { ADMIN_TOKEN_FILE, ensureDemo, resolveAdminToken } from "@/bootstrap.ts";
import { startTestEnv } from "../helpers/env.ts";
import { admin, call, callOn, test } from "../helpers/mod.ts";

test("operator API is off (404) without an admin token, and the test clock without SVC_TEST_CLOCK", async () => {
  const e = await startTestEnv({ adminToken: undefined, testClock: false });
  try {
    const off = await callOn(e, "POST", "/admin/orgs", { token: "anything", body: { name: "x" } });
    assert.equal(off.status, 404);
    assert.equal(off.body.error.code, "NOT_FOUND");
  } finally {
    await e.close();
  }
  const e2 = await startTestEnv({ testClock: false });
  try {
    const clock = await callOn(e2, "POST", "/admin/clock", {
      token: "test-admin-token",
      body: { advanceMs: 1 },
    });
    assert.equal(clock.status, 404);
  } finally {
    await e2.close();
  }
});

test("operator API validates bodies with 400 VALIDATION_ERROR and field errors", async () => {
  const res = await call("POST", "/admin/projects", {
    token: "test-admin-token",
    body: { orgId: "nope", name: "", ticketPrefix: "lower" },
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
  const paths = res.body.error.details.fields.map((f: { path: string }) => f.path).sort();
  assert.deepEqual(paths, ["name", "orgId", "ticketPrefix"]);
});

test("operator API: users, members, org suspension and project settings", async () => {
  const org = await admin("POST", "/orgs", { name: "Acme" });
  assert.equal(org.plan, "free");
  const user = await admin("POST", "/users", {
    email: `u${crypto.randomUUID()}@x.io`,
    password: "12345678",
    name: "U",
  });
  const dup = await call("POST", "/admin/users", {
    token: "test-admin-token",
    body: { email: user.email.toUpperCase(), password: "12345678", name: "U" },
  });
  assert.equal(dup.status, 409);
  const project = await admin("POST", "/projects", { orgId: org.id, name: "P", ticketPrefix: "PQ" });
  assert.equal(project.reviewMode, "medium");
  const member = await admin("POST", `/projects/${project.id}/members`, { userId: user.id, role: "viewer" });
  assert.deepEqual(member, { projectId: project.id, userId: user.id, role: "viewer" });
  const patched = await admin("PATCH", `/projects/${project.id}`, { settings: { threadsEnabled: false } });
  assert.equal(patched.settings.threadsEnabled, false);
  const suspended = await admin("PATCH", `/orgs/${org.id}`, { status: "suspended" });
  assert.equal(suspended.status, "suspended");
  const key = await admin("POST", `/projects/${project.id}/api-keys`, { agentName: "bot", scopes: [] });
  assert.match(key.key, /^svc_key_/);
  const me = await call("GET", "/me", { token: key.key });
  assert.equal(me.status, 401, "a suspended organization's credentials are refused");
});

test("first start on an empty embedded database creates the demo project and a pairing code", async () => {
  const e = await startTestEnv();
  try {
    const demo = await ensureDemo(e.db, e.clock);
    assert.ok(demo);
    assert.match(demo.pairingCode, /^[A-Z0-9]{8}$/);
    const project = await e.db.selectFrom("projects").selectAll().where("id", "=", demo.projectId)
      .executeTakeFirstOrThrow();
    assert.equal(project.name, "Demo");
    assert.equal(project.ticket_prefix, "DEMO");
    const paired = await callOn(e, "POST", "/pair/connect", {
      body: { code: demo.pairingCode, agentName: "a" },
    });
    assert.equal(paired.status, 200);
    const again = await ensureDemo(e.db, e.clock);
    assert.ok(again);
    assert.notEqual(again.pairingCode, demo.pairingCode, "a later start prints a fresh code");
    const projects = await e.db.selectFrom("projects").select("id").execute();
    assert.equal(projects.length, 1, "the demo is created once");
    const dataDir = await Deno.makeTempDir();
    const embedded = { ...e.config, adminToken: undefined, databaseUrl: undefined, dataDir };
    const token = await resolveAdminToken(e.db, embedded, e.clock);
    assert.ok(token);
    assert.equal(
      await resolveAdminToken(e.db, embedded, e.clock),
      token,
      "the generated admin token is kept",
    );
    const file = `${dataDir}/${ADMIN_TOKEN_FILE}`;
    assert.equal((await Deno.readTextFile(file)).trim(), token, "its clear value lives in DATA_DIR");
    if (Deno.build.os !== "windows") assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    const secrets = await e.db.selectFrom("service_secrets").selectAll().execute();
    assert.ok(!JSON.stringify(secrets).includes(token), "the database keeps only its hash");
    assert.ok(
      secrets.some((r) => r.name === "admin_token_hash" && r.value === (/^[0-9a-f]{64}$/.exec(r.value)?.[0])),
    );
    assert.equal(demo.password?.length ? JSON.stringify(secrets).includes(demo.password) : false, false);
    assert.equal(again.password, null, "a later start does not know the demo password");
    await Deno.writeTextFile(file, "svc_admin_edited\n");
    const replaced = await resolveAdminToken(e.db, embedded, e.clock);
    assert.notEqual(
      replaced,
      "svc_admin_edited",
      "a token file that does not match the stored hash is replaced",
    );
    assert.equal((await Deno.readTextFile(file)).trim(), replaced);
    await Deno.remove(dataDir, { recursive: true });
    assert.equal(
      await resolveAdminToken(
        e.db,
        { ...e.config, adminToken: undefined, databaseUrl: "postgres://x/y" },
        e.clock,
      ),
      undefined,
      "with PostgreSQL and no token the admin API is off",
    );
  } finally {
    await e.close();
  }
});
