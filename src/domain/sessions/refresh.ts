import type { DbOrTrx, Trx } from "@/db/database.ts";
import type { AgentRole } from "@/db/tables/foundation.ts";
import { revokeTokens } from "@/domain/auth/revoke.ts";
import {
  SESSION_GRACE_MS,
  SESSION_REFRESH_WINDOW_MS,
  SESSION_TOKEN_PREFIX,
} from "@/domain/auth/token-policy.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import type { ActorCtx, ServiceCtx } from "@/domain/core/context.ts";
import { hitCounter } from "@/domain/core/counters.ts";
import { hashToken } from "@/domain/core/crypto.ts";
import { DomainError, fail, recovery } from "@/domain/core/errors.ts";
import { OPEN_SESSION_STATUSES } from "./close.ts";
import { issueSessionToken } from "./open.ts";

/** Session refreshes allowed per agent per hour (spec: Auth limits). */
export const REFRESHES_PER_HOUR = 5;
const HOUR = 3600_000;

/**
 * The one refusal of POST /session/refresh. Unknown, revoked, too-old and ineligible tokens get this
 * exact body, so a caller cannot tell which case it hit (SESS-029).
 */
function cannotRefresh(): DomainError {
  return fail.unauthorized("This session token cannot be refreshed; pair again with a new code", {
    recovery: recovery(
      "REPAIR",
      "POST /pair/connect",
      "Ask a project admin or your orchestrator for a new pairing code and pair again",
      { code: "<pairing code>", agentName: "<your agent name>" },
    ),
  });
}

/** What a refresh needs to know about the presented token, its agent, project, organization and session. */
export interface RefreshableToken {
  tokenId: string;
  expiresAt: Date | null;
  idleExpiresAt: Date | null;
  revokedAt: Date | null;
  agentId: string;
  agentName: string;
  role: AgentRole;
  agentStatus: string;
  projectId: string;
  projectStatus: string;
  orgStatus: string;
  sessionId: string;
  sessionStatus: string;
}

/**
 * Whether the token may be refreshed, and how: `live` before its expiry, `grace` up to 7 days after
 * (SESS-028). Any other case (revoked token or agent, inactive project or organization, closed session,
 * too old) is the one indistinguishable refusal (SESS-029).
 */
export function refreshMode(row: RefreshableToken, now: Date): "live" | "grace" {
  if (row.revokedAt) throw cannotRefresh();
  if (row.agentStatus === "revoked" || row.projectStatus !== "active" || row.orgStatus !== "active") {
    throw cannotRefresh();
  }
  if (!(OPEN_SESSION_STATUSES as readonly string[]).includes(row.sessionStatus)) throw cannotRefresh();
  const expiredAt = effectiveExpiry(row.expiresAt, row.idleExpiresAt);
  if (expiredAt === null || expiredAt > now) return "live";
  if (now.getTime() - expiredAt.getTime() > SESSION_GRACE_MS) throw cannotRefresh();
  return "grace";
}

/**
 * POST /session/refresh: rotates a session token. The old token (live or expired at most 7 days ago)
 * is revoked at once with the sub-agent tokens minted from it and any unused `meta.refreshedToken`
 * replacement; the new token is bound to the same session, carries the role's default scopes and
 * has a fresh 7-day limit. 5 refreshes per agent per hour.
 */
export async function refreshSession(ctx: ServiceCtx, token: string) {
  if (!token.startsWith(SESSION_TOKEN_PREFIX)) throw cannotRefresh();
  const now = ctx.clock.now();
  const row = await findToken(ctx.db, token);
  if (!row) throw cannotRefresh();
  const mode = refreshMode(row, now);
  await limitRefreshes(ctx.db, row.agentId, now);
  const issued = await ctx.db.transaction().execute((trx) => rotate(trx, row, mode, now));
  return {
    sessionToken: issued.sessionToken,
    sessionId: row.sessionId,
    agent: { id: row.agentId, name: row.agentName },
    expiresAt: issued.expiresAt.toISOString(),
    refreshMode: mode,
    nextAction: {
      action: "RELOAD_CONTEXT" as const,
      endpoint: "GET /context" as const,
      message: "Use the new sessionToken from now on (the old one is revoked) and reload GET /context. " +
        "Sub-agent tokens minted with the old token stopped working: mint them again.",
    },
  };
}

async function findToken(db: DbOrTrx, token: string): Promise<RefreshableToken | undefined> {
  return await db.selectFrom("tokens as t")
    .innerJoin("agents as a", "a.id", "t.agent_id")
    .innerJoin("projects as p", "p.id", "t.project_id")
    .innerJoin("organizations as o", "o.id", "p.org_id")
    .innerJoin("sessions as s", "s.id", "t.session_id")
    .select([
      "t.id as tokenId",
      "t.expires_at as expiresAt",
      "t.idle_expires_at as idleExpiresAt",
      "t.revoked_at as revokedAt",
      "a.id as agentId",
      "a.name as agentName",
      "a.role",
      "a.status as agentStatus",
      "p.id as projectId",
      "p.status as projectStatus",
      "o.status as orgStatus",
      "s.id as sessionId",
      "s.status as sessionStatus",
    ])
    .where("t.token_hash", "=", hashToken(token)).where("t.kind", "=", "session")
    .executeTakeFirst();
}

/** 5 refreshes per agent per hour; the sixth is a 429 with `Retry-After`. */
async function limitRefreshes(db: DbOrTrx, agentId: string, now: Date): Promise<void> {
  const hits = await hitCounter(db, `refresh:agent:${agentId}`, HOUR, now);
  if (hits.count <= REFRESHES_PER_HOUR) return;
  const retryAfterSeconds = Math.max(1, Math.ceil((hits.resetAt.getTime() - now.getTime()) / 1000));
  throw new DomainError(
    "limited",
    "RATE_LIMITED",
    `More than ${REFRESHES_PER_HOUR} session refreshes in an hour for this agent`,
    { retryAfterSeconds },
    { retryAfterSeconds },
  );
}

/** Revokes the old token (and what hangs on it) and issues the new one, in one transaction. */
async function rotate(trx: Trx, row: RefreshableToken, mode: "live" | "grace", now: Date) {
  const revoked = await revokeTokens(trx, [row.tokenId], now);
  // A concurrent refresh of the same token won the race: this one answers like a revoked token.
  if (!revoked.includes(row.tokenId)) throw cannotRefresh();
  await revokeUnusedReplacements(trx, row.tokenId, now);
  const next = await issueSessionToken(trx, {
    projectId: row.projectId,
    agentId: row.agentId,
    role: row.role,
    sessionId: row.sessionId,
    now,
  });
  await recordEvent(trx, {
    projectId: row.projectId,
    kind: "session.refreshed",
    entityType: "session",
    entityId: row.sessionId,
    agentId: row.agentId,
    data: { mode, revokedTokens: revoked.length },
    now,
  });
  return next;
}

/** When a token stopped (or will stop) working: the earlier of its hard limit and idle expiry. */
function effectiveExpiry(hard: Date | null, idle: Date | null): Date | null {
  if (hard && idle) return hard < idle ? hard : idle;
  return hard ?? idle;
}

async function revokeUnusedReplacements(trx: Trx, oldTokenId: string, now: Date): Promise<void> {
  const unused = await trx.selectFrom("token_rotations as r").innerJoin(
    "tokens as t",
    "t.id",
    "r.new_token_id",
  )
    .select("t.id").where("r.old_token_id", "=", oldTokenId).where("t.last_used_at", "is", null)
    .where("t.revoked_at", "is", null).execute();
  await revokeTokens(trx, unused.map((u) => u.id), now);
}

/**
 * For GET /context (SESS-079/080): when the caller's session token is within 30 minutes of its 7-day
 * limit, issues a replacement to return in `meta.refreshedToken`; otherwise (or for any other token
 * kind) returns null.
 *
 * Design (SESS-080), documented on GET /context:
 * - The replacement is a new `svc_sess_` token bound to the same session, with the role's default
 *   scopes and a new 7-day limit (and 24-hour idle window) counted from its issue.
 * - The old token is not revoked: it keeps working until its own 7-day limit, at most 30 minutes away,
 *   so calls in flight never fail. Sub-agent tokens minted from it keep working until their own expiry.
 * - Each GET /context inside the window returns a fresh replacement; all stay valid. Replacements do not
 *   count against the 5-per-hour refresh limit. Refreshing the old token with POST /session/refresh
 *   revokes the replacements that were never used.
 */
export async function issueRefreshedToken(ctx: ActorCtx): Promise<string | null> {
  const { actor } = ctx;
  if (actor.kind !== "session" || !actor.tokenExpiresAt) return null;
  const now = ctx.clock.now();
  if (actor.tokenExpiresAt.getTime() - now.getTime() > SESSION_REFRESH_WINDOW_MS) return null;
  // The bound session and base role come from the token and agent, not the actor, which may be acting
  // as a sub-agent through X-Svc-SubAgent.
  const token = await ctx.db.selectFrom("tokens as t").innerJoin("agents as a", "a.id", "t.agent_id")
    .select(["t.session_id as sessionId", "a.role"]).where("t.id", "=", actor.tokenId).executeTakeFirst();
  if (!token?.sessionId) return null;
  const sessionId = token.sessionId;
  const role: AgentRole = token.role;
  return await ctx.db.transaction().execute(async (trx) => {
    const issued = await issueSessionToken(trx, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      role,
      sessionId,
      now,
      unused: true,
    });
    await trx.insertInto("token_rotations").values({
      new_token_id: issued.tokenId,
      old_token_id: actor.tokenId,
      created_at: now,
    }).execute();
    await recordEvent(trx, {
      projectId: actor.projectId,
      kind: "session.token_replaced",
      entityType: "session",
      entityId: sessionId,
      agentId: actor.agentId,
      data: { expiresAt: issued.expiresAt.toISOString() },
      now,
    });
    return issued.sessionToken;
  });
}
