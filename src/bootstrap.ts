import type { Clock } from "@/clock.ts";
import type { Config } from "@/config.ts";
import type { Db } from "@/db/database.ts";
import { hashToken, randomSecret, timingSafeEqual } from "@/domain/core/crypto.ts";
import * as operator from "@/domain/operator/operator.ts";

export const ADMIN_TOKEN_FILE = "admin-token";
const ADMIN_TOKEN_HASH = "admin_token_hash";

async function readTokenFile(path: string): Promise<string | null> {
  try {
    const text = (await Deno.readTextFile(path)).trim();
    return text === "" ? null : text;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

async function writeTokenFile(dataDir: string, path: string, token: string): Promise<void> {
  await Deno.mkdir(dataDir, { recursive: true });
  const temp = `${path}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temp, `${token}\n`, { mode: 0o600 });
  await Deno.chmod(temp, 0o600).catch(() => {}); // the umask may have narrowed, never widened, the mode
  await Deno.rename(temp, path);
}

async function storeTokenHash(db: Db, clock: Clock, token: string): Promise<void> {
  const value = hashToken(token);
  await db.insertInto("service_secrets").values({ name: ADMIN_TOKEN_HASH, value, created_at: clock.now() })
    .onConflict((oc) => oc.column("name").doUpdateSet({ value, created_at: clock.now() })).execute();
}

/**
 * The admin token for the embedded database when `SVC_ADMIN_TOKEN` is unset: generated once, its clear
 * value kept in `DATA_DIR/admin-token` (mode 0600) and only its SHA-256 hash in the database. A token
 * file whose hash does not match the database (edited, or the database replaced) is replaced by a new
 * token; an older database's clear `admin_token` row is moved to the file and deleted. With PostgreSQL
 * and no token the operator API stays off.
 */
export async function resolveAdminToken(db: Db, config: Config, clock: Clock): Promise<string | undefined> {
  if (config.adminToken) return config.adminToken;
  if (config.databaseUrl && config.databaseUrl !== "memory://") return undefined;
  const path = `${config.dataDir.replace(/\/+$/, "")}/${ADMIN_TOKEN_FILE}`;
  const legacy = await db.selectFrom("service_secrets").select("value").where("name", "=", "admin_token")
    .executeTakeFirst();
  if (legacy) {
    await writeTokenFile(config.dataDir, path, legacy.value);
    await storeTokenHash(db, clock, legacy.value);
    await db.deleteFrom("service_secrets").where("name", "=", "admin_token").execute();
    return legacy.value;
  }
  const stored = await db.selectFrom("service_secrets").select("value").where("name", "=", ADMIN_TOKEN_HASH)
    .executeTakeFirst();
  const fromFile = await readTokenFile(path);
  if (fromFile && stored && timingSafeEqual(hashToken(fromFile), stored.value)) return fromFile;
  if (fromFile && !stored) {
    await storeTokenHash(db, clock, fromFile);
    return fromFile;
  }
  const token = `svc_admin_${randomSecret(24)}`;
  await writeTokenFile(config.dataDir, path, token);
  await storeTokenHash(db, clock, token);
  return token;
}

const DEMO_EMAIL = "demo@example.com";

export interface DemoData {
  orgId: string;
  projectId: string;
  email: string;
  /** Only on the first start (it is stored only as a hash); null on later starts. */
  password: string | null;
  pairingCode: string;
  codeExpiresAt: string;
}

/**
 * On a first start with an empty embedded database: an organization, a user, project `Demo` (prefix
 * DEMO) and a fresh pairing code; the user's password is returned (to be printed) this once and stored
 * only as its scrypt hash. Later starts only print a fresh code for the demo project.
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
    return {
      orgId: "",
      projectId: project.id,
      email: DEMO_EMAIL,
      password: null,
      pairingCode: code.code,
      codeExpiresAt: code.expiresAt,
    };
  }
  const anyProject = await db.selectFrom("projects").select("id").limit(1).executeTakeFirst();
  if (anyProject) return null;
  const org = await operator.createOrg(ctx, { name: "Demo Org", plan: "team" });
  const password = randomSecret(9);
  const email = DEMO_EMAIL;
  const user = await operator.createUser(ctx, { email, password, name: "Demo User" });
  const project = await operator.createProject(ctx, { orgId: org.id, name: "Demo", ticketPrefix: "DEMO" });
  await operator.addMember(ctx, project.id, { userId: user.id, role: "admin" });
  const now = clock.now();
  await db.insertInto("service_secrets").values({ name: "demo_project", value: project.id, created_at: now })
    .execute();
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
