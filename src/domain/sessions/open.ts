import type { Trx } from "@/db/database.ts";
import type { AgentRole } from "@/db/tables/foundation.ts";
import { toJson } from "@/db/tables/types.ts";
import { sessionScopes } from "@/domain/core/scopes.ts";
import { nextIdleExpiry, SESSION_MAX_AGE_MS, SESSION_TOKEN_PREFIX } from "@/domain/auth/token-policy.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { hashToken, randomSecret } from "@/domain/core/crypto.ts";
import { closeSessions, OPEN_SESSION_STATUSES } from "./close.ts";

export { revokeSessionTokens } from "@/domain/auth/revoke.ts";

/** Completes every open session of the agent (not its sub-agents') and revokes their tokens. */
export async function completeOpenSessions(trx: Trx, agentId: string, now: Date): Promise<string[]> {
  const open = await trx.selectFrom("sessions").select(["id", "project_id"]).where("agent_id", "=", agentId)
    .where("sub_agent_name", "is", null).where("status", "in", [...OPEN_SESSION_STATUSES]).execute();
  const first = open[0];
  if (!first) return [];
  return await closeSessions(trx, {
    projectId: first.project_id,
    sessionIds: open.map((s) => s.id),
    status: "complete",
    byAgentId: agentId,
    reason: "paired_again",
    now,
  });
}

export interface OpenedSession {
  sessionId: string;
  sessionToken: string;
  tokenId: string;
  expiresAt: Date;
}

/** Opens a session row (no token) and records `session.opened`. */
export async function insertSession(
  trx: Trx,
  input: {
    projectId: string;
    agentId: string;
    subAgentName: string | null;
    source: "pairing" | "subagent" | "oauth" | "api_key";
    now: Date;
  },
): Promise<string> {
  const sessionId = crypto.randomUUID();
  await trx.insertInto("sessions").values({
    id: sessionId,
    project_id: input.projectId,
    agent_id: input.agentId,
    sub_agent_name: input.subAgentName,
    source: input.source,
    ticket_id: null,
    started_at: input.now,
  }).execute();
  await recordEvent(trx, {
    projectId: input.projectId,
    kind: "session.opened",
    entityType: "session",
    entityId: sessionId,
    agentId: input.agentId,
    data: { source: input.source, subAgentName: input.subAgentName },
    now: input.now,
  });
  return sessionId;
}

/** Opens a pairing session for the agent and issues its `svc_sess_` token (7-day hard limit, idle window). */
export async function openPairingSession(
  trx: Trx,
  input: { projectId: string; agentId: string; role: AgentRole; now: Date },
): Promise<OpenedSession> {
  const sessionId = await insertSession(trx, { ...input, subAgentName: null, source: "pairing" });
  const issued = await issueSessionToken(trx, { ...input, sessionId });
  return { sessionId, ...issued };
}

/**
 * Stores a new session token for an existing session; the caller sees the secret once. Scopes are the
 * role's default. `unused` leaves `last_used_at` empty, marking a `meta.refreshedToken` replacement
 * not used yet (refresh.ts revokes those when the old token is refreshed instead).
 */
export async function issueSessionToken(
  trx: Trx,
  input: {
    projectId: string;
    agentId: string;
    role: AgentRole;
    sessionId: string;
    now: Date;
    unused?: boolean;
  },
): Promise<{ sessionToken: string; tokenId: string; expiresAt: Date }> {
  const sessionToken = `${SESSION_TOKEN_PREFIX}${randomSecret(32)}`;
  const tokenId = crypto.randomUUID();
  const expiresAt = new Date(input.now.getTime() + SESSION_MAX_AGE_MS);
  await trx.insertInto("tokens").values({
    id: tokenId,
    kind: "session",
    token_hash: hashToken(sessionToken),
    project_id: input.projectId,
    agent_id: input.agentId,
    session_id: input.sessionId,
    sub_agent_name: null,
    parent_token_id: null,
    name: null,
    scopes: toJson(sessionScopes(input.role)),
    created_at: input.now,
    expires_at: expiresAt,
    idle_expires_at: nextIdleExpiry(input.now, expiresAt),
    last_used_at: input.unused ? null : input.now,
  }).execute();
  return { sessionToken, tokenId, expiresAt };
}
