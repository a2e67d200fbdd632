import type { DbOrTrx } from "@/db/database.ts";
import type { Actor } from "@/domain/core/actor.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import { hashToken } from "@/domain/core/crypto.ts";
import { fail, recovery } from "@/domain/core/errors.ts";
import { hitCounter } from "@/domain/core/counters.ts";
import {
  actorOf,
  asSubAgent,
  type Identity,
  identityOf,
  OPEN_SESSION_STATUSES,
  tokenKindOf,
  type TokenRow,
} from "./token-check.ts";
import { looksLikeJwt } from "@/domain/oauth/access-token.ts";
import { authenticateOAuth } from "@/domain/oauth/actor.ts";
import { nextIdleExpiry, SESSION_BURST_LIMIT, SESSION_BURST_WINDOW_MS } from "./token-policy.ts";

export const SUB_AGENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

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
  const row = await loadToken(ctx.db, token);
  let identity = row ? identityOf(row, kind, now) : null;
  if (!row || !identity) throw rejected();
  if (kind.actorKind === "session" && input.subAgentHeader !== undefined) {
    identity = await subAgentIdentity(ctx.db, row.agentId, input.subAgentHeader, identity);
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
  return actorOf(row, kind, identity);
}

/** The token by its hash, with its agent, project, organization, session, parent token and sub-agent. */
/**
 * Whether a bearer still admits its holder (not revoked, expired or idle; agent, project and organization
 * live), without counting a call or restarting the idle window: a long-lived event stream re-checks with it.
 */
export async function credentialLive(ctx: ServiceCtx, bearer: string): Promise<boolean> {
  const token = bearer.trim();
  if (!token.startsWith("svc_") && looksLikeJwt(token)) {
    return await authenticateOAuth(ctx, token).then(() => true, () => false);
  }
  const kind = tokenKindOf(token);
  if (!kind) return false;
  const row = await loadToken(ctx.db, token);
  return row !== undefined && identityOf(row, kind, ctx.clock.now()) !== null;
}

function loadToken(db: DbOrTrx, token: string): Promise<TokenRow | undefined> {
  const hash = hashToken(token);
  return db
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
    .where("t.token_hash", "=", hash)
    .executeTakeFirst();
}

/** `X-Svc-SubAgent` on a session token: the named, unrevoked sub-agent of the token's agent, or 401. */
async function subAgentIdentity(
  db: DbOrTrx,
  agentId: string,
  name: string,
  identity: Identity,
): Promise<Identity> {
  if (!SUB_AGENT_NAME.test(name)) throw fail.unauthorized("Malformed X-Svc-SubAgent");
  const sub = await db.selectFrom("sub_agents").select(["name", "role"])
    .where("parent_agent_id", "=", agentId).where("name", "=", name).where("revoked_at", "is", null)
    .executeTakeFirst();
  if (!sub) throw fail.unauthorized(`Sub-agent "${name}" is not registered`);
  const own = await db.selectFrom("sessions").select("id").where("agent_id", "=", agentId)
    .where("sub_agent_name", "=", sub.name).where("status", "in", [...OPEN_SESSION_STATUSES])
    .orderBy("started_at", "desc").limit(1).executeTakeFirst();
  return asSubAgent(identity, sub, own?.id ?? null);
}
