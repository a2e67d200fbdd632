import type { Actor } from "@/domain/core/actor.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import { OAUTH_READ_SCOPES, OAUTH_WRITE_SCOPES } from "@/domain/core/scopes.ts";
import {
  type AccessClaims,
  accessTokenRejected,
  type OAuthScope,
  verifyAccessToken,
} from "./access-token.ts";

/** Platform recorded for agents created through OAuth (OAUTH-003), the value the tool server sends. */
export const OAUTH_PLATFORM = "oauth";
const AGENT_NAME_MAX = 100;

/** An access token that verifies and still stands, with what the service knows of its holder now. */
export interface LiveAccess {
  claims: AccessClaims;
  /** The effective scope: the token's, capped to `read` for a viewer. */
  scope: OAuthScope;
  memberRole: "admin" | "member" | "viewer";
  orgId: string;
  plan: Actor["plan"];
  userId: string;
  userName: string;
  /** The user's OAuth agent in the project, when one exists yet. */
  agent: {
    id: string;
    name: string;
    platform: string;
    role: Actor["role"];
    status: string;
    lastSeenAt: Date | null;
  } | null;
}

/**
 * The one check of an OAuth access token, shared by REST and `/mcp`: verifies the JWT locally, then in
 * one read checks that its `jti` was not revoked (POST /api/oauth/revoke, or issued from a code that was
 * replayed: OAUTH-042, OAUTH-063), the organization is active, the project active (and in that
 * organization), the user still a member and the user's OAuth agent (if any) not revoked. Otherwise the
 * one 401.
 */
export async function verifyLiveAccessToken(ctx: ServiceCtx, token: string): Promise<LiveAccess> {
  const claims = await verifyAccessToken(ctx, token);
  const row = await ctx.db
    .selectFrom("projects as p")
    .innerJoin("organizations as o", "o.id", "p.org_id")
    .innerJoin(
      "memberships as m",
      (join) => join.onRef("m.project_id", "=", "p.id").on("m.user_id", "=", claims.sub),
    )
    .innerJoin("users as u", "u.id", "m.user_id")
    .leftJoin("oauth_revoked_access_tokens as r", (join) => join.on("r.jti", "=", claims.jti))
    .leftJoin(
      "agents as a",
      (join) =>
        join.onRef("a.project_id", "=", "p.id").onRef("a.user_id", "=", "u.id")
          .on("a.platform", "=", OAUTH_PLATFORM),
    )
    .select([
      "p.status as projectStatus",
      "o.id as orgId",
      "o.status as orgStatus",
      "o.plan",
      "m.role as memberRole",
      "u.id as userId",
      "u.name as userName",
      "r.jti as revokedJti",
      "a.id as agentId",
      "a.name as agentName",
      "a.platform as agentPlatform",
      "a.role as agentRole",
      "a.status as agentStatus",
      "a.last_seen_at as agentLastSeenAt",
    ])
    .where("p.id", "=", claims.projectId)
    .executeTakeFirst();
  if (!row || row.revokedJti !== null || row.orgId !== claims.orgId) throw accessTokenRejected();
  if (row.projectStatus !== "active" || row.orgStatus !== "active") throw accessTokenRejected();
  if (row.agentStatus === "revoked") throw accessTokenRejected();
  const agent = row.agentId !== null && row.agentName !== null && row.agentPlatform !== null &&
      row.agentRole !== null && row.agentStatus !== null
    ? {
      id: row.agentId,
      name: row.agentName,
      platform: row.agentPlatform,
      role: row.agentRole,
      status: row.agentStatus,
      lastSeenAt: row.agentLastSeenAt,
    }
    : null;
  return {
    claims,
    scope: row.memberRole === "viewer" ? "read" : claims.scope,
    memberRole: row.memberRole,
    orgId: row.orgId,
    plan: row.plan,
    userId: row.userId,
    userName: row.userName,
    agent,
  };
}

/**
 * Resolves an OAuth access token to its actor (`verifyLiveAccessToken`). A viewer is capped to `read`
 * even when the token says `write`. The first call creates the user's agent in the token's project (role
 * `generator`, platform `oauth`); later calls reuse it (one per user and project:
 * `agents_oauth_user_key`). Scopes are the OAuth sets (ROLE-026/027), never empty, and `X-Svc-SubAgent`
 * plays no part (SUB-005).
 */
export async function authenticateOAuth(ctx: ServiceCtx, token: string): Promise<Actor> {
  const live = await verifyLiveAccessToken(ctx, token);
  const { claims } = live;
  const agent = live.agent ?? await oauthAgent(ctx, claims.projectId, live.userId, live.userName);
  if (agent.status === "revoked") throw accessTokenRejected();
  await markSeen(ctx, agent.id, live.agent?.lastSeenAt ?? null);
  return {
    kind: "oauth",
    tokenKind: "oauth_access",
    tokenId: claims.jti,
    agentId: agent.id,
    agentName: agent.name,
    platform: agent.platform,
    role: agent.role,
    projectId: claims.projectId,
    orgId: live.orgId,
    plan: live.plan,
    scopes: live.scope === "write" ? [...OAUTH_WRITE_SCOPES] : [...OAUTH_READ_SCOPES],
    sessionId: null,
    subAgentName: null,
    tokenCreatedAt: new Date(claims.iat * 1000),
    tokenExpiresAt: new Date(claims.exp * 1000),
  };
}

/** How stale an OAuth agent's `last_seen_at` may get before a call writes it again. */
export const OAUTH_SEEN_EVERY_MS = 60_000;

/**
 * Session-token agents are seen through their token's `last_used_at`; an OAuth agent has no token row,
 * so its calls write `agents.last_seen_at`, at most once a minute per agent (the conditional update
 * makes concurrent calls write once).
 */
async function markSeen(ctx: ServiceCtx, agentId: string, lastSeenAt: Date | null): Promise<void> {
  const now = ctx.clock.now();
  const due = new Date(now.getTime() - OAUTH_SEEN_EVERY_MS);
  if (lastSeenAt && lastSeenAt > due) return;
  await ctx.db.updateTable("agents").set({ last_seen_at: now }).where("id", "=", agentId)
    .where((eb) => eb.or([eb("last_seen_at", "is", null), eb("last_seen_at", "<=", due)])).execute();
}

/**
 * The user's OAuth agent in the project, created on first need. Concurrent first calls race on the
 * unique index and all read back the one row. When the user's name is already taken by another agent of
 * the project, the agent is named `<name> (oauth)` (then with a short suffix). The dashboard acts
 * through the same agent (one identity per user and project).
 */
export async function oauthAgent(ctx: ServiceCtx, projectId: string, userId: string, userName: string) {
  const find = () =>
    ctx.db.selectFrom("agents").select(["id", "name", "platform", "role", "status"])
      .where("project_id", "=", projectId).where("user_id", "=", userId).where(
        "platform",
        "=",
        OAUTH_PLATFORM,
      )
      .executeTakeFirst();
  const existing = await find();
  if (existing) return existing;
  const base = userName.trim().slice(0, AGENT_NAME_MAX - 20) || "oauth-user";
  const names = [base, `${base} (oauth)`, `${base} (oauth ${userId.slice(0, 8)})`];
  for (const name of names) {
    await ctx.db.insertInto("agents").values({
      id: crypto.randomUUID(),
      project_id: projectId,
      user_id: userId,
      name,
      platform: OAUTH_PLATFORM,
      model: null,
      company: null,
      role: "generator",
      partner_managed_session_id: null,
      created_at: ctx.clock.now(),
    }).onConflict((oc) => oc.doNothing()).execute();
    const created = await find();
    if (created) return created;
  }
  throw accessTokenRejected();
}
