import type { AgentRole } from "@/db/tables/foundation.ts";
import type { Actor, ActorKind } from "@/domain/shared/actor.ts";
import type { ServiceCtx } from "@/domain/shared/context.ts";
import { hashToken } from "@/domain/shared/crypto.ts";
import { fail, recovery } from "@/domain/shared/errors.ts";
import { hitCounter } from "@/domain/shared/counters.ts";
import { SUBAGENT_SCOPES } from "./scopes.ts";
import { looksLikeJwt } from "@/domain/oauth/access-token.ts";
import { authenticateOAuth } from "@/domain/oauth/actor.ts";
import {
  API_KEY_PREFIX,
  nextIdleExpiry,
  SESSION_BURST_LIMIT,
  SESSION_BURST_WINDOW_MS,
  SESSION_TOKEN_PREFIX,
  SUBAGENT_TOKEN_PREFIX,
} from "./token-policy.ts";

export const SUB_AGENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const OPEN_STATUSES = ["active", "awaiting_input", "error"] as const;

/**
 * The one refusal for a token that does not work: unknown, malformed, expired (7-day limit or idle),
 * revoked, bound to a closed session, minted from a revoked parent, or of a revoked agent, an archived
 * project or a suspended organization. One body for all, so a token's state is never disclosed.
 */
export function rejected() {
  return fail.unauthorized("Invalid, expired or revoked credentials", {
    recovery: recovery(
      "REPAIR_OR_REFRESH",
      "POST /session/refresh",
      "A session token that expired less than 7 days ago can be refreshed; otherwise pair again " +
        "(POST /pair/connect) with a new code, or ask your orchestrator for a new sub-agent token",
      { token: "<your last session token>" },
    ),
  });
}

/** More than SESSION_BURST_LIMIT requests in the burst window on one session token. */
export function sessionBurstRefusal() {
  return fail.unauthorized("More than 200 requests in 5 minutes on this session token");
}

export interface AuthenticateInput {
  bearer: string | undefined;
  /** `X-Svc-SubAgent` header value, honoured only with session tokens (ignored with OAuth tokens). */
  subAgentHeader?: string | undefined;
}

/**
 * Resolves a bearer token to its actor, refusing missing, malformed, expired, revoked or idle
 * credentials, revoked agents, archived projects and suspended organizations with one 401.
 * Session tokens: counts the 200-per-5-minutes budget and restarts the idle window.
 */
export async function authenticate(ctx: ServiceCtx, input: AuthenticateInput): Promise<Actor> {
  const token = input.bearer?.trim();
  if (!token) throw fail.unauthorized("Missing bearer token");
  // OAuth access tokens (JWTs): verified locally; `X-Svc-SubAgent` is ignored with them (SUB-005).
  if (!token.startsWith("svc_") && looksLikeJwt(token)) return await authenticateOAuth(ctx, token);
  const kind = tokenKindOf(token);
  if (!kind) throw rejected();
  const now = ctx.clock.now();
  const row = await ctx.db
    .selectFrom("tokens as t")
    .innerJoin("agents as a", "a.id", "t.agent_id")
    .innerJoin("projects as p", "p.id", "t.project_id")
    .innerJoin("organizations as o", "o.id", "p.org_id")
    .leftJoin("sessions as s", "s.id", "t.session_id")
    .leftJoin("tokens as parent", "parent.id", "t.parent_token_id")
    .leftJoin(
      "sub_agents as sa",
      (join) => join.onRef("sa.parent_agent_id", "=", "t.agent_id").onRef("sa.name", "=", "t.sub_agent_name"),
    )
    .select([
      "t.id as tokenId",
      "t.kind",
      "t.session_id as sessionId",
      "t.sub_agent_name as subAgentName",
      "t.scopes",
      "t.created_at as createdAt",
      "t.expires_at as expiresAt",
      "t.idle_expires_at as idleExpiresAt",
      "t.revoked_at as revokedAt",
      "parent.revoked_at as parentRevokedAt",
      "sa.role as subAgentRole",
      "sa.revoked_at as subAgentRevokedAt",
      "a.id as agentId",
      "a.name as agentName",
      "a.platform",
      "a.role",
      "a.status as agentStatus",
      "p.id as projectId",
      "p.status as projectStatus",
      "o.id as orgId",
      "o.plan",
      "o.status as orgStatus",
      "s.status as sessionStatus",
    ])
    .where("t.token_hash", "=", await hashToken(token))
    .executeTakeFirst();
  if (!row || row.kind !== kind.tokenKind) throw rejected();
  if (row.revokedAt) throw rejected();
  if (row.expiresAt && row.expiresAt <= now) throw rejected();
  if (row.idleExpiresAt && row.idleExpiresAt <= now) throw rejected();
  if (row.agentStatus === "revoked") throw rejected();
  if (row.projectStatus !== "active") throw rejected();
  if (row.orgStatus !== "active") throw rejected();
  if (row.sessionId && !(OPEN_STATUSES as readonly string[]).includes(row.sessionStatus ?? "")) {
    throw rejected();
  }
  let role: AgentRole = row.role;
  let scopes = row.scopes;
  let subAgentName = row.subAgentName;
  let sessionId = row.sessionId;
  if (kind.actorKind === "subagent") {
    if (row.parentRevokedAt || !row.subAgentRole || row.subAgentRevokedAt) throw rejected();
    role = row.subAgentRole;
  }

  if (kind.actorKind === "session" && input.subAgentHeader !== undefined) {
    const name = input.subAgentHeader;
    if (!SUB_AGENT_NAME.test(name)) throw fail.unauthorized("Malformed X-Svc-SubAgent");
    const sub = await ctx.db.selectFrom("sub_agents").select(["name", "role"])
      .where("parent_agent_id", "=", row.agentId).where("name", "=", name).where("revoked_at", "is", null)
      .executeTakeFirst();
    if (!sub) throw fail.unauthorized(`Sub-agent "${name}" is not registered`);
    const own = await ctx.db.selectFrom("sessions").select("id").where("agent_id", "=", row.agentId)
      .where("sub_agent_name", "=", sub.name).where("status", "in", [...OPEN_STATUSES])
      .orderBy("started_at", "desc").limit(1).executeTakeFirst();
    subAgentName = sub.name;
    role = sub.role;
    // Acting as a sub-agent never grants more than a sub-agent token would carry.
    scopes = (scopes.length === 0 ? [...SUBAGENT_SCOPES] : scopes)
      .filter((s) => (SUBAGENT_SCOPES as string[]).includes(s));
    sessionId = own?.id ?? null;
  }

  // The burst count and the idle refresh are independent writes: one round trip instead of two.
  const [burst] = await Promise.all([
    kind.actorKind === "session"
      ? hitCounter(ctx.db, `sess:${row.tokenId}`, SESSION_BURST_WINDOW_MS, now)
      : Promise.resolve(null),
    row.idleExpiresAt
      ? ctx.db.updateTable("tokens")
        .set({ last_used_at: now, idle_expires_at: nextIdleExpiry(now, row.expiresAt) })
        .where("id", "=", row.tokenId).execute()
      : Promise.resolve(),
  ]);
  if (burst && burst.count > SESSION_BURST_LIMIT) throw sessionBurstRefusal();

  return {
    kind: kind.actorKind,
    tokenKind: row.kind,
    tokenId: row.tokenId,
    agentId: row.agentId,
    agentName: row.agentName,
    platform: row.platform,
    role,
    projectId: row.projectId,
    orgId: row.orgId,
    plan: row.plan,
    scopes,
    sessionId,
    subAgentName,
    tokenCreatedAt: row.createdAt,
    tokenExpiresAt: row.expiresAt,
  };
}

function tokenKindOf(
  token: string,
): { tokenKind: "session" | "subagent" | "api_key"; actorKind: ActorKind } | null {
  if (token.startsWith(SESSION_TOKEN_PREFIX)) return { tokenKind: "session", actorKind: "session" };
  if (token.startsWith(SUBAGENT_TOKEN_PREFIX)) return { tokenKind: "subagent", actorKind: "subagent" };
  if (token.startsWith(API_KEY_PREFIX)) return { tokenKind: "api_key", actorKind: "api_key" };
  return null;
}
