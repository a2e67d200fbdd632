import type { Clock } from "@/clock.ts";
import type { Config } from "@/config.ts";
import type { Db } from "@/db/database.ts";
import { randomSecret } from "@/domain/shared/crypto.ts";
import * as operator from "@/domain/operator/operator.ts";

/**
 * The admin token for the embedded database when `SVC_ADMIN_TOKEN` is unset: generated once and kept
 * in the database (which lives in DATA_DIR). With PostgreSQL and no token the operator API stays off.
 */
export async function resolveAdminToken(db: Db, config: Config, clock: Clock): Promise<string | undefined> {
  if (config.adminToken) return config.adminToken;
  if (config.databaseUrl && config.databaseUrl !== "memory://") return undefined;
  const existing = await db.selectFrom("service_secrets").select("value").where("name", "=", "admin_token")
    .executeTakeFirst();
  if (existing) return existing.value;
  const value = `svc_admin_${randomSecret(24)}`;
  await db.insertInto("service_secrets").values({ name: "admin_token", value, created_at: clock.now() })
    .onConflict((oc) => oc.column("name").doNothing()).execute();
  const stored = await db.selectFrom("service_secrets").select("value").where("name", "=", "admin_token")
    .executeTakeFirstOrThrow();
  return stored.value;
}

export interface DemoData {
  orgId: string;
  projectId: string;
  email: string;
  password: string;
  pairingCode: string;
  codeExpiresAt: string;
}

/**
 * On a first start with an empty embedded database: an organization, a user, project `Demo` (prefix
 * DEMO) and a fresh pairing code. Later starts only print a fresh code for the demo project.
 */
export async function ensureDemo(db: Db, clock: Clock): Promise<DemoData | null> {
  const ctx = { db, clock };
  const marker = await db.selectFrom("service_secrets").select("value").where("name", "=", "demo_project")
    .executeTakeFirst();
  if (marker) {
    const project = await db.selectFrom("projects").select("id").where("id", "=", marker.value)
      .executeTakeFirst();
    if (!project) return null;
    const code = await operator.createAdminPairingCode(ctx, project.id, { role: "generator" });
    const user = await db.selectFrom("service_secrets").select("value").where("name", "=", "demo_user")
      .executeTakeFirst();
    const [email, password] = (user?.value ?? ":").split(":");
    return {
      orgId: "",
      projectId: project.id,
      email: email ?? "",
      password: password ?? "",
      pairingCode: code.code,
      codeExpiresAt: code.expiresAt,
    };
  }
  const anyProject = await db.selectFrom("projects").select("id").limit(1).executeTakeFirst();
  if (anyProject) return null;
  const org = await operator.createOrg(ctx, { name: "Demo Org", plan: "team" });
  const password = randomSecret(9);
  const email = "demo@example.com";
  const user = await operator.createUser(ctx, { email, password, name: "Demo User" });
  const project = await operator.createProject(ctx, { orgId: org.id, name: "Demo", ticketPrefix: "DEMO" });
  await operator.addMember(ctx, project.id, { userId: user.id, role: "admin" });
  const now = clock.now();
  await db.insertInto("service_secrets").values([
    { name: "demo_project", value: project.id, created_at: now },
    { name: "demo_user", value: `${email}:${password}`, created_at: now },
  ]).execute();
  const code = await operator.createAdminPairingCode(ctx, project.id, { role: "generator" });
  return {
    orgId: org.id,
    projectId: project.id,
    email,
    password,
    pairingCode: code.code,
    codeExpiresAt: code.expiresAt,
  };
}
