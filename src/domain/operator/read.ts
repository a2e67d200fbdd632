import type { SelectQueryBuilder } from "kysely";
import type { Database } from "@/db/database.ts";
import { DomainError, fail } from "@/domain/core/errors.ts";
import type { OperatorCtx } from "./operator.ts";
import { withSettingDefaults } from "@/domain/core/mcp-tool-set.ts";

/**
 * The operator's reads (operator contract: every collection answers GET with a list, newest first,
 * `limit` 1 to 100 (default 50) and `cursor`, with `meta.nextCursor`; `GET .../:id` reads one).
 * Secrets are never returned: no password hashes, keys or codes in clear.
 */

export interface Page {
  limit: number;
  cursor?: string | undefined;
}

interface Position {
  at: Date;
  id: string;
}

function encodeCursor(p: Position): string {
  return btoa(`${p.at.toISOString()}|${p.id}`).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

function decodeCursor(cursor: string): Position {
  const bad = () =>
    new DomainError(
      "invalid",
      "VALIDATION_ERROR",
      "Malformed cursor: pass meta.nextCursor of the previous page",
      {
        fields: [{ path: "cursor", message: "Malformed cursor", code: "invalid_format" }],
      },
    );
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    throw bad();
  }
  const [iso, id] = text.split("|");
  const at = new Date(iso ?? "");
  if (!id || Number.isNaN(at.getTime()) || !/^[0-9a-f-]{36}$/.test(id)) throw bad();
  return { at, id };
}

/** Keyset page over `(createdCol, idCol)` descending. */
export async function page<DB, TB extends keyof DB, O extends { created_at: Date }>(
  query: SelectQueryBuilder<DB, TB, O>,
  createdCol: string,
  idCol: string,
  idOf: (row: O) => string,
  input: Page,
): Promise<{ rows: O[]; nextCursor: string | null }> {
  // deno-lint-ignore no-explicit-any
  let q = query as SelectQueryBuilder<any, any, O>;
  if (input.cursor) {
    const after = decodeCursor(input.cursor);
    q = q.where((eb) =>
      eb.or([
        eb(createdCol, "<", after.at),
        eb.and([eb(createdCol, "=", after.at), eb(idCol, "<", after.id)]),
      ])
    );
  }
  const rows = await q.orderBy(createdCol, "desc").orderBy(idCol, "desc").limit(input.limit + 1).execute();
  const more = rows.length > input.limit;
  const shown = more ? rows.slice(0, input.limit) : rows;
  const last = shown[shown.length - 1];
  return {
    rows: shown,
    nextCursor: more && last ? encodeCursor({ at: last.created_at, id: idOf(last) }) : null,
  };
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

// Organizations -------------------------------------------------------------------------------------

type OrgRow = Pick<Database["organizations"], "id" | "name"> & {
  plan: string;
  status: string;
  created_at: Date;
};
const toOrg = (r: OrgRow) => ({
  id: r.id,
  name: r.name,
  plan: r.plan,
  status: r.status,
  createdAt: r.created_at.toISOString(),
});

export async function listOrgs(ctx: OperatorCtx, input: Page) {
  const q = ctx.db.selectFrom("organizations").select(["id", "name", "plan", "status", "created_at"]);
  const { rows, nextCursor } = await page(q, "created_at", "id", (r) => r.id, input);
  return { items: rows.map(toOrg), nextCursor };
}

export async function getOrg(ctx: OperatorCtx, orgId: string) {
  const row = await ctx.db.selectFrom("organizations").select(["id", "name", "plan", "status", "created_at"])
    .where("id", "=", orgId).executeTakeFirst();
  if (!row) throw fail.notFound(`Organization "${orgId}" not found`);
  return toOrg(row);
}

// Users ---------------------------------------------------------------------------------------------

const toUser = (r: { id: string; email: string; name: string; created_at: Date }) => ({
  id: r.id,
  email: r.email,
  name: r.name,
  createdAt: r.created_at.toISOString(),
});

export async function listUsers(ctx: OperatorCtx, input: Page) {
  const q = ctx.db.selectFrom("users").select(["id", "email", "name", "created_at"]);
  const { rows, nextCursor } = await page(q, "created_at", "id", (r) => r.id, input);
  return { items: rows.map(toUser), nextCursor };
}

export async function getUser(ctx: OperatorCtx, userId: string) {
  const row = await ctx.db.selectFrom("users").select(["id", "email", "name", "created_at"])
    .where("id", "=", userId).executeTakeFirst();
  if (!row) throw fail.notFound(`User "${userId}" not found`);
  return toUser(row);
}

// Projects ------------------------------------------------------------------------------------------

const projectColumns = [
  "id",
  "org_id",
  "name",
  "ticket_prefix",
  "review_mode",
  "settings",
  "status",
  "password_hash",
  "created_at",
] as const;

function toProject(r: {
  id: string;
  org_id: string;
  name: string;
  ticket_prefix: string;
  review_mode: string;
  settings: unknown;
  status: string;
  password_hash: string | null;
  created_at: Date;
}) {
  return {
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    ticketPrefix: r.ticket_prefix,
    reviewMode: r.review_mode,
    settings: withSettingDefaults(r.settings),
    status: r.status,
    hasPassword: r.password_hash !== null,
    createdAt: r.created_at.toISOString(),
  };
}

export async function listProjects(ctx: OperatorCtx, input: Page) {
  const q = ctx.db.selectFrom("projects").select([...projectColumns]);
  const { rows, nextCursor } = await page(q, "created_at", "id", (r) => r.id, input);
  return { items: rows.map(toProject), nextCursor };
}

export async function getProject(ctx: OperatorCtx, projectId: string) {
  const row = await ctx.db.selectFrom("projects").select([...projectColumns]).where("id", "=", projectId)
    .executeTakeFirst();
  if (!row) throw fail.notFound(`Project "${projectId}" not found`);
  return toProject(row);
}

async function requireProject(ctx: OperatorCtx, projectId: string): Promise<void> {
  const row = await ctx.db.selectFrom("projects").select("id").where("id", "=", projectId).executeTakeFirst();
  if (!row) throw fail.notFound(`Project "${projectId}" not found`);
}

// Members -------------------------------------------------------------------------------------------

function membersQuery(ctx: OperatorCtx, projectId: string) {
  return ctx.db.selectFrom("memberships as m").innerJoin("users as u", "u.id", "m.user_id")
    .select(["m.project_id", "m.user_id", "m.role", "m.created_at", "u.email", "u.name"])
    .where("m.project_id", "=", projectId);
}

const toMember = (r: {
  project_id: string;
  user_id: string;
  role: string;
  created_at: Date;
  email: string;
  name: string;
}) => ({
  projectId: r.project_id,
  userId: r.user_id,
  role: r.role,
  email: r.email,
  name: r.name,
  createdAt: r.created_at.toISOString(),
});

export async function listMembers(ctx: OperatorCtx, projectId: string, input: Page) {
  await requireProject(ctx, projectId);
  const { rows, nextCursor } = await page(
    membersQuery(ctx, projectId),
    "m.created_at",
    "m.user_id",
    (r) => r.user_id,
    input,
  );
  return { items: rows.map(toMember), nextCursor };
}

export async function getMember(ctx: OperatorCtx, projectId: string, userId: string) {
  await requireProject(ctx, projectId);
  const row = await membersQuery(ctx, projectId).where("m.user_id", "=", userId).executeTakeFirst();
  if (!row) throw fail.notFound(`User "${userId}" is not a member of project "${projectId}"`);
  return toMember(row);
}

// Agents --------------------------------------------------------------------------------------------

const agentColumns = [
  "id",
  "project_id",
  "name",
  "platform",
  "model",
  "company",
  "role",
  "status",
  "created_at",
  "last_seen_at",
] as const;

const toAgent = (r: {
  id: string;
  project_id: string;
  name: string;
  platform: string | null;
  model: string | null;
  company: string | null;
  role: string;
  status: string;
  created_at: Date;
  last_seen_at: Date | null;
}) => ({
  id: r.id,
  projectId: r.project_id,
  name: r.name,
  platform: r.platform,
  model: r.model,
  company: r.company,
  role: r.role,
  status: r.status,
  createdAt: r.created_at.toISOString(),
  lastSeenAt: iso(r.last_seen_at),
});

export async function listAgents(ctx: OperatorCtx, projectId: string, input: Page) {
  await requireProject(ctx, projectId);
  const q = ctx.db.selectFrom("agents").select([...agentColumns]).where("project_id", "=", projectId);
  const { rows, nextCursor } = await page(q, "created_at", "id", (r) => r.id, input);
  return { items: rows.map(toAgent), nextCursor };
}

export async function getAgent(ctx: OperatorCtx, projectId: string, agentId: string) {
  await requireProject(ctx, projectId);
  const row = await ctx.db.selectFrom("agents").select([...agentColumns]).where("project_id", "=", projectId)
    .where("id", "=", agentId).executeTakeFirst();
  if (!row) throw fail.notFound(`Agent "${agentId}" not found in project "${projectId}"`);
  return toAgent(row);
}

// API keys (never the key itself) -------------------------------------------------------------------

function keysQuery(ctx: OperatorCtx, projectId: string) {
  return ctx.db.selectFrom("tokens").select([
    "id",
    "name",
    "agent_id",
    "scopes",
    "created_at",
    "last_used_at",
    "revoked_at",
  ]).where("project_id", "=", projectId).where("kind", "=", "api_key");
}

const toKey = (r: {
  id: string;
  name: string | null;
  agent_id: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}) => ({
  id: r.id,
  name: r.name,
  agentId: r.agent_id,
  scopes: r.scopes,
  createdAt: r.created_at.toISOString(),
  lastUsedAt: iso(r.last_used_at),
  revokedAt: iso(r.revoked_at),
});

export async function listApiKeys(ctx: OperatorCtx, projectId: string, input: Page) {
  await requireProject(ctx, projectId);
  const { rows, nextCursor } = await page(keysQuery(ctx, projectId), "created_at", "id", (r) => r.id, input);
  return { items: rows.map(toKey), nextCursor };
}

export async function getApiKey(ctx: OperatorCtx, projectId: string, keyId: string) {
  await requireProject(ctx, projectId);
  const row = await keysQuery(ctx, projectId).where("id", "=", keyId).executeTakeFirst();
  if (!row) throw fail.notFound(`API key "${keyId}" not found in project "${projectId}"`);
  return toKey(row);
}
