import type { z } from "zod";
import type {
  ApiKeyBody,
  MemberAddBody,
  OrgCreateBody,
  OrgPatchBody,
  PairingCodeBody,
  ProjectCreateBody,
  ProjectPatchBody,
  UserCreateBody,
} from "@/contracts/operator.ts";
import { sql } from "kysely";
import type { Clock } from "@/clock.ts";
import type { Db } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";
import { ADMIN_CODE_TTL_SECONDS, type IssuedCode, issuePairingCode } from "@/domain/pairing/codes.ts";
import { API_KEY_PREFIX, API_KEY_SECRET_BYTES } from "@/domain/auth/token-policy.ts";
import { hashPassword, hashToken, randomSecret } from "@/domain/core/crypto.ts";
import { DomainError, fail } from "@/domain/core/errors.ts";
import { withSettingDefaults } from "@/domain/core/mcp-tool-set.ts";

/** The operator's verbs (organizations, users, projects, members, codes, keys). No actor: admin only. */
export interface OperatorCtx {
  db: Db;
  clock: Clock;
}

export async function createOrg(ctx: OperatorCtx, input: z.output<typeof OrgCreateBody>) {
  const row = {
    id: crypto.randomUUID(),
    name: input.name,
    plan: input.plan ?? "free",
    status: "active" as const,
    created_at: ctx.clock.now(),
  };
  await ctx.db.insertInto("organizations").values(row).execute();
  return { id: row.id, name: row.name, plan: row.plan, status: row.status };
}

export async function updateOrg(
  ctx: OperatorCtx,
  orgId: string,
  input: z.output<typeof OrgPatchBody>,
) {
  const row = await ctx.db.updateTable("organizations")
    .set({ ...(input.plan ? { plan: input.plan } : {}), ...(input.status ? { status: input.status } : {}) })
    .where("id", "=", orgId).returning(["id", "name", "plan", "status"]).executeTakeFirst();
  if (!row) throw fail.notFound(`Cannot update organization "${orgId}": not found`);
  return row;
}

export async function createUser(ctx: OperatorCtx, input: z.output<typeof UserCreateBody>) {
  const id = crypto.randomUUID();
  const inserted = await ctx.db.insertInto("users").values({
    id,
    email: input.email,
    password_hash: await hashPassword(input.password),
    name: input.name,
    created_at: ctx.clock.now(),
  }).onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
    .returning("id").executeTakeFirst();
  if (!inserted) throw fail.conflict(`Cannot create user "${input.email}": email already registered`);
  return { id, email: input.email, name: input.name };
}

/** POST /admin/projects' body, as the route has parsed it. */
export type CreateProjectInput = z.output<typeof ProjectCreateBody>;

export async function createProject(ctx: OperatorCtx, input: CreateProjectInput) {
  const org = await ctx.db.selectFrom("organizations").select("id").where("id", "=", input.orgId)
    .executeTakeFirst();
  if (!org) throw fail.notFound(`Cannot create project: organization "${input.orgId}" not found`);
  const now = ctx.clock.now();
  const id = crypto.randomUUID();
  const reviewMode = input.reviewMode ?? "medium";
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto("projects").values({
      id,
      org_id: input.orgId,
      name: input.name,
      ticket_prefix: input.ticketPrefix,
      review_mode: reviewMode,
      password_hash: input.password ? await hashPassword(input.password) : null,
      settings: toJson(input.settings ?? {}),
      created_at: now,
      updated_at: now,
    }).execute();
    await trx.insertInto("event_cursors").values({ project_id: id }).execute();
  });
  return { id, name: input.name, ticketPrefix: input.ticketPrefix, reviewMode };
}

/** PATCH /admin/projects/{projectId}'s body, as the route has parsed it. */
export type UpdateProjectInput = z.output<typeof ProjectPatchBody>;

export async function updateProject(ctx: OperatorCtx, projectId: string, input: UpdateProjectInput) {
  const current = await ctx.db.selectFrom("projects").select(["settings"]).where("id", "=", projectId)
    .executeTakeFirst();
  if (!current) throw fail.notFound(`Cannot update project "${projectId}": not found`);
  const set: Record<string, unknown> = { updated_at: ctx.clock.now() };
  if (input.name !== undefined) set.name = input.name;
  if (input.reviewMode !== undefined) set.review_mode = input.reviewMode;
  if (input.status !== undefined) set.status = input.status;
  if (input.password !== undefined) {
    set.password_hash = input.password ? await hashPassword(input.password) : null;
  }
  if (input.settings !== undefined) set.settings = toJson({ ...current.settings, ...input.settings });
  const row = await ctx.db.updateTable("projects").set(set).where("id", "=", projectId)
    .returning(["id", "name", "ticket_prefix", "review_mode", "settings", "status", "org_id"])
    .executeTakeFirstOrThrow();
  return {
    id: row.id,
    orgId: row.org_id,
    name: row.name,
    ticketPrefix: row.ticket_prefix,
    reviewMode: row.review_mode,
    settings: withSettingDefaults(row.settings),
    status: row.status,
  };
}

export async function addMember(
  ctx: OperatorCtx,
  projectId: string,
  input: z.output<typeof MemberAddBody>,
) {
  await requireProject(ctx, projectId);
  const user = await ctx.db.selectFrom("users").select("id").where("id", "=", input.userId)
    .executeTakeFirst();
  if (!user) throw fail.notFound(`Cannot add member: user "${input.userId}" not found`);
  await ctx.db.insertInto("memberships").values({
    project_id: projectId,
    user_id: input.userId,
    role: input.role,
    created_at: ctx.clock.now(),
  }).onConflict((oc) => oc.columns(["project_id", "user_id"]).doUpdateSet({ role: input.role })).execute();
  return { projectId, userId: input.userId, role: input.role };
}

export async function createAdminPairingCode(
  ctx: OperatorCtx,
  projectId: string,
  input: z.output<typeof PairingCodeBody>,
): Promise<IssuedCode> {
  await requireProject(ctx, projectId);
  return await issuePairingCode(ctx.db, {
    projectId,
    agentName: input.agentName,
    role: input.role,
    platform: input.platform,
    model: input.model,
    ttlSeconds: ADMIN_CODE_TTL_SECONDS,
    now: ctx.clock.now(),
  });
}

/** An API key for an agent (created or reused by name). Keys never expire; scopes `[]` = unrestricted. */
export async function createApiKey(
  ctx: OperatorCtx,
  projectId: string,
  input: z.output<typeof ApiKeyBody>,
) {
  await requireProject(ctx, projectId);
  const now = ctx.clock.now();
  const key = `${API_KEY_PREFIX}${randomSecret(API_KEY_SECRET_BYTES)}`;
  const id = crypto.randomUUID();
  const agentId = await ctx.db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom("agents").select(["id", "status"]).where(
      "project_id",
      "=",
      projectId,
    )
      .where((eb) => eb(eb.fn("lower", ["name"]), "=", input.agentName.toLowerCase())).executeTakeFirst();
    let agentId = existing?.id;
    if (!agentId) {
      agentId = crypto.randomUUID();
      await trx.insertInto("agents").values({
        id: agentId,
        project_id: projectId,
        user_id: null,
        name: input.agentName,
        platform: "api",
        model: null,
        company: null,
        role: input.role ?? "generator",
        partner_managed_session_id: null,
        created_at: now,
      }).execute();
    } else if (input.role) {
      await trx.updateTable("agents").set({ role: input.role }).where("id", "=", agentId).execute();
    }
    await trx.insertInto("tokens").values({
      id,
      kind: "api_key",
      token_hash: hashToken(key),
      project_id: projectId,
      agent_id: agentId,
      session_id: null,
      sub_agent_name: null,
      parent_token_id: null,
      name: input.name ?? input.agentName,
      scopes: toJson(input.scopes ?? []),
      created_at: now,
    }).execute();
    return agentId;
  });
  return { id, key, agentId };
}

async function requireProject(ctx: OperatorCtx, projectId: string): Promise<void> {
  const project = await ctx.db.selectFrom("projects").select("id").where("id", "=", projectId)
    .executeTakeFirst();
  if (!project) throw new DomainError("not_found", "NOT_FOUND", `Project "${projectId}" not found`);
}
