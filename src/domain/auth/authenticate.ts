import type { AgentRole } from "@/db/tables/foundation.ts";
import type { Actor, ActorKind } from "@/domain/shared/actor.ts";
import type { ServiceCtx } from "@/domain/shared/context.ts";
import { hashToken } from "@/domain/shared/crypto.ts";
import { fail } from "@/domain/shared/errors.ts";
import { hitCounter } from "@/domain/shared/counters.ts";
import {
  API_KEY_PREFIX,
  nextIdleExpiry,
  SESSION_BURST_LIMIT,
  SESSION_BURST_WINDOW_MS,
  SESSION_TOKEN_PREFIX,
  SUBAGENT_TOKEN_PREFIX,
} from "./token-policy.ts";

const SUB_AGENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface AuthenticateInput {
  bearer: string | undefined;
  /** `X-Svc-SubAgent` header value, honoured only with session tokens. */
  subAgentHeader?: string | undefined;
}

/**
 * Resolves a bearer token to its actor, refusing missing, malformed, expired, revoked or idle
 * credentials and inactive agents, projects and organizations with one 401. Refreshes the idle window.
 */
export async function authenticate(ctx: ServiceCtx, input: AuthenticateInput): Promise<Actor> {
  const token = input.bearer?.trim();
  if (!token) throw fail.unauthorized("Missing bearer token");
  const kind = tokenKindOf(token);
  if (!kind) throw fail.unauthorized("Malformed bearer token");
  const now = ctx.clock.now();
  const row = await ctx.db
    .selectFrom("tokens as t")
    .innerJoin("agents as a", "a.id", "t.agent_id")
    .innerJoin("projects as p", "p.id", "t.project_id")
    .innerJoin("organizations as o", "o.id", "p.org_id")
    .leftJoin("sessions as s", "s.id", "t.session_id")
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
  if (!row || row.kind !== kind.tokenKind) throw fail.unauthorized("Unknown token");
  if (row.revokedAt) throw fail.unauthorized("Token revoked");
  if (row.expiresAt && row.expiresAt <= now) throw fail.unauthorized("Token expired");
  if (row.idleExpiresAt && row.idleExpiresAt <= now) {
    throw fail.unauthorized("Token expired after inactivity");
  }
  if (row.agentStatus !== "active") throw fail.unauthorized("Agent is offline or revoked");
  if (row.projectStatus !== "active") throw fail.unauthorized("Project is archived");
  if (row.orgStatus !== "active") throw fail.unauthorized("Organization is suspended");
  if (row.sessionId && (row.sessionStatus === "complete" || row.sessionStatus === "canceled")) {
    throw fail.unauthorized("Session is closed; pair again or refresh");
  }

  let subAgentName = row.subAgentName;
  let role: AgentRole = row.role;
  if (kind.actorKind === "session" && input.subAgentHeader !== undefined) {
    const name = input.subAgentHeader;
    if (!SUB_AGENT_NAME.test(name)) throw fail.unauthorized("Malformed X-Svc-SubAgent");
    const sub = await ctx.db.selectFrom("sub_agents").select(["name", "role"])
      .where("parent_agent_id", "=", row.agentId).where("name", "=", name).where("revoked_at", "is", null)
      .executeTakeFirst();
    if (!sub) throw fail.unauthorized(`Sub-agent "${name}" is not registered`);
    subAgentName = sub.name;
    role = sub.role;
  }

  if (kind.actorKind === "session") {
    const { count } = await hitCounter(ctx.db, `sess:${row.tokenId}`, SESSION_BURST_WINDOW_MS, now);
    if (count > SESSION_BURST_LIMIT) {
      throw fail.unauthorized("More than 200 requests in 5 minutes on this session token");
    }
  }
  if (row.idleExpiresAt) {
    await ctx.db.updateTable("tokens")
      .set({ last_used_at: now, idle_expires_at: nextIdleExpiry(now, row.expiresAt) })
      .where("id", "=", row.tokenId).execute();
  }

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
    scopes: row.scopes,
    sessionId: row.sessionId,
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
