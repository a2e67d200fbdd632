import assert from "node:assert/strict";
import { sql } from "kysely";
import { admin, call, env, newProject, pairAgent, test } from "../helpers/mod.ts";
import { ensureDemo, resolveAdminToken } from "@/bootstrap.ts";
import { startTestEnv } from "../helpers/env.ts";
import type { Db } from "@/db/database.ts";
import { timingSafeEqual, verifyPassword } from "@/domain/core/crypto.ts";

/** Every text-like and jsonb value of every table of the public schema, as one string per cell. */
async function everyStoredText(db: Db): Promise<{ where: string; text: string }[]> {
  const { rows: columns } = await sql<{ table_name: string; column_name: string }>`
    select c.table_name, c.column_name from information_schema.columns c
    join information_schema.tables t on t.table_name = c.table_name and t.table_schema = c.table_schema
    where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
      and c.data_type in ('text', 'character varying', 'character', 'jsonb', 'json', 'ARRAY')
    order by c.table_name, c.column_name`.execute(db);
  assert.ok(columns.length > 20, "the dump sees the schema");
  const cells: { where: string; text: string }[] = [];
  for (const { table_name, column_name } of columns) {
    const { rows } = await sql<{ v: string | null }>`select ${sql.ref(column_name)}::text as v from ${
      sql.table(table_name)
    }`.execute(db);
    for (const row of rows) {
      if (row.v !== null) cells.push({ where: `${table_name}.${column_name}`, text: row.v });
    }
  }
  return cells;
}

function assertNoneStored(cells: { where: string; text: string }[], secrets: Map<string, string>): void {
  for (const [label, secret] of secrets) {
    assert.ok(secret.length >= 8, `${label} is a real secret`);
    const hit = cells.find((c) => c.text.includes(secret));
    assert.equal(hit, undefined, `${label} stored in clear in ${hit?.where}`);
  }
}

test("no token, code, key or password is stored in clear in any text or jsonb column", async () => {
  const secrets = new Map<string, string>();
  const password = "pairing-secret-pw-123";
  const { projectId } = await newProject({ password });
  secrets.set("project password", password);

  const userPassword = "user-secret-pw-456";
  await admin("POST", "/users", {
    email: `u${crypto.randomUUID().slice(0, 6)}@x.io`,
    password: userPassword,
    name: "U",
  });
  secrets.set("user password", userPassword);

  const code = await admin("POST", `/projects/${projectId}/pairing-codes`, { role: "orchestrator" });
  secrets.set("admin pairing code", code.code);
  const paired = await call("POST", "/pair/connect", {
    body: { code: code.code, agentName: "orch", password },
    headers: { "X-Forwarded-For": "10.77.0.1" },
  });
  assert.equal(paired.status, 200, paired.text);
  const orch = paired.body.data.sessionToken as string;
  secrets.set("session token", orch);

  const agentCode = await call("POST", "/pair/code", { token: orch, body: { agentName: "child" } });
  assert.equal(agentCode.status, 201, agentCode.text);
  secrets.set("agent pairing code", agentCode.body.data.code);

  const minted = await call("POST", "/subagent/session", {
    token: orch,
    body: { name: "worker-1", role: "generator" },
  });
  assert.ok(minted.status < 300, minted.text);
  secrets.set("sub-agent token", minted.body.data.subAgentToken);

  const key = await admin("POST", `/projects/${projectId}/api-keys`, { agentName: "bot", scopes: [] });
  secrets.set("api key", key.key);

  const refreshed = await call("POST", "/session/refresh", { body: { token: orch } });
  assert.equal(refreshed.status, 200, refreshed.text);
  secrets.set("refreshed session token", refreshed.body.data.sessionToken);

  const other = await pairAgent(projectId, { password });
  secrets.set("second session token", other.token);

  const { db } = await env();
  assertNoneStored(await everyStoredText(db), secrets);

  const users = await db.selectFrom("users").select("password_hash").execute();
  assert.ok(users.length > 0 && users.every((u) => u.password_hash.startsWith("scrypt$")), "scrypt, salted");
  const project = await db.selectFrom("projects").select("password_hash").where("id", "=", projectId)
    .executeTakeFirstOrThrow();
  assert.match(project.password_hash ?? "", /^scrypt\$16384\$8\$1\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
  assert.equal(await verifyPassword(password, project.password_hash!), true);
  assert.equal(await verifyPassword("wrong", project.password_hash!), false);
});

test("the embedded admin token and the demo password are not stored in clear", async () => {
  const e = await startTestEnv();
  const dataDir = await Deno.makeTempDir();
  try {
    const demo = await ensureDemo(e.db, e.clock);
    assert.ok(demo?.password);
    const token = await resolveAdminToken(
      e.db,
      { ...e.config, adminToken: undefined, databaseUrl: undefined, dataDir },
      e.clock,
    );
    assert.ok(token);
    const secrets = new Map([
      ["admin token", token],
      ["demo password", demo.password],
      ["demo pairing code", demo.pairingCode],
    ]);
    assertNoneStored(await everyStoredText(e.db), secrets);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await e.close();
  }
});

test("an older database's clear admin token row is moved to DATA_DIR and replaced by its hash", async () => {
  const e = await startTestEnv();
  const dataDir = await Deno.makeTempDir();
  try {
    await e.db.insertInto("service_secrets").values({
      name: "admin_token",
      value: "svc_admin_legacy_clear_value",
      created_at: new Date(),
    }).execute();
    const config = { ...e.config, adminToken: undefined, databaseUrl: undefined, dataDir };
    assert.equal(await resolveAdminToken(e.db, config, e.clock), "svc_admin_legacy_clear_value");
    assert.equal((await Deno.readTextFile(`${dataDir}/admin-token`)).trim(), "svc_admin_legacy_clear_value");
    assertNoneStored(
      await everyStoredText(e.db),
      new Map([["legacy admin token", "svc_admin_legacy_clear_value"]]),
    );
    assert.equal(await resolveAdminToken(e.db, config, e.clock), "svc_admin_legacy_clear_value", "kept");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await e.close();
  }
});

test("secret comparison is on digests: equal strings only, whatever their lengths", () => {
  assert.equal(timingSafeEqual("svc_admin_abc", "svc_admin_abc"), true);
  assert.equal(timingSafeEqual("svc_admin_abc", "svc_admin_abd"), false);
  assert.equal(timingSafeEqual("svc_admin_abc", "svc_admin_abcdef"), false);
  assert.equal(timingSafeEqual("", ""), true);
  assert.equal(timingSafeEqual("", "x"), false);
});
