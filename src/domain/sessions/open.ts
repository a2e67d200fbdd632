import type { Trx } from "@/db/database.ts";
import type { AgentRole } from "@/db/tables/foundation.ts";
import { toJson } from "@/db/tables/types.ts";
import { sessionScopes } from "@/domain/auth/scopes.ts";
import { nextIdleExpiry, SESSION_MAX_AGE_MS, SESSION_TOKEN_PREFIX } from "@/domain/auth/token-policy.ts";
import { hashToken, randomSecret } from "@/domain/shared/crypto.ts";

const OPEN_STATUSES = ["active", "awaiting_input", "error"] as const;

/** Completes every open session of the agent (not its sub-agents') and revokes their tokens. */
export async function completeOpenSessions(trx: Trx, agentId: string, now: Date): Promise<string[]> {
  const closed = await trx.updateTable("sessions").set({ status: "complete", ended_at: now })
    .where("agent_id", "=", agentId).where("sub_agent_name", "is", null)
    .where("status", "in", [...OPEN_STATUSES]).returning("id").execute();
  const ids = closed.map((s) => s.id);
  if (ids.length > 0) await revokeSessionTokens(trx, ids, now);
  return ids;
}

/** Revokes the tokens bound to the sessions, and the sub-agent tokens minted from them. */
export async function revokeSessionTokens(trx: Trx, sessionIds: string[], now: Date): Promise<void> {
  if (sessionIds.length === 0) return;
  const revoked = await trx.updateTable("tokens").set({ revoked_at: now })
    .where("session_id", "in", sessionIds).where("revoked_at", "is", null).returning("id").execute();
  const parentIds = revoked.map((t) => t.id);
  if (parentIds.length > 0) {
    await trx.updateTable("tokens").set({ revoked_at: now })
      .where("parent_token_id", "in", parentIds).where("revoked_at", "is", null).execute();
  }
}

export interface OpenedSession {
  sessionId: string;
  sessionToken: string;
  tokenId: string;
  expiresAt: Date;
}

/** Opens a pairing session for the agent and issues its `svc_sess_` token (7-day hard limit, idle window). */
export async function openPairingSession(
  trx: Trx,
  input: { projectId: string; agentId: string; role: AgentRole; now: Date },
): Promise<OpenedSession> {
  const sessionId = crypto.randomUUID();
  await trx.insertInto("sessions").values({
    id: sessionId,
    project_id: input.projectId,
    agent_id: input.agentId,
    sub_agent_name: null,
    source: "pairing",
    ticket_id: null,
    started_at: input.now,
  }).execute();
  const issued = await issueSessionToken(trx, { ...input, sessionId });
  return { sessionId, ...issued };
}

/** Stores a new session token for an existing session; the caller sees the secret once. */
export async function issueSessionToken(
  trx: Trx,
  input: { projectId: string; agentId: string; role: AgentRole; sessionId: string; now: Date },
): Promise<{ sessionToken: string; tokenId: string; expiresAt: Date }> {
  const sessionToken = `${SESSION_TOKEN_PREFIX}${randomSecret(32)}`;
  const tokenId = crypto.randomUUID();
  const expiresAt = new Date(input.now.getTime() + SESSION_MAX_AGE_MS);
  await trx.insertInto("tokens").values({
    id: tokenId,
    kind: "session",
    token_hash: await hashToken(sessionToken),
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
    last_used_at: input.now,
  }).execute();
  return { sessionToken, tokenId, expiresAt };
}
