import type { AgentRole, Plan, TokenKind as StoredTokenKind } from "@/db/tables/foundation.ts";
import type { Actor, ActorKind } from "@/domain/core/actor.ts";
import { SUBAGENT_SCOPES } from "@/domain/core/scopes.ts";
import { API_KEY_PREFIX, SESSION_TOKEN_PREFIX, SUBAGENT_TOKEN_PREFIX } from "./token-policy.ts";

const OPEN_STATUSES = ["active", "awaiting_input", "error"] as const;
export { OPEN_STATUSES as OPEN_SESSION_STATUSES };

export interface PrefixKind {
  tokenKind: "session" | "subagent" | "api_key";
  actorKind: ActorKind;
}

/** The kind a service token announces by its prefix; null for anything else. */
export function tokenKindOf(token: string): PrefixKind | null {
  if (token.startsWith(SESSION_TOKEN_PREFIX)) return { tokenKind: "session", actorKind: "session" };
  if (token.startsWith(SUBAGENT_TOKEN_PREFIX)) return { tokenKind: "subagent", actorKind: "subagent" };
  if (token.startsWith(API_KEY_PREFIX)) return { tokenKind: "api_key", actorKind: "api_key" };
  return null;
}

/** A token row with what decides whether it still works (see `loadToken`). */
export interface TokenRow {
  tokenId: string;
  kind: StoredTokenKind;
  sessionId: string | null;
  subAgentName: string | null;
  scopes: string[];
  createdAt: Date;
  expiresAt: Date | null;
  idleExpiresAt: Date | null;
  revokedAt: Date | null;
  parentRevokedAt: Date | null;
  subAgentRole: AgentRole | null;
  subAgentRevokedAt: Date | null;
  agentId: string;
  agentName: string;
  platform: string | null;
  role: AgentRole;
  agentStatus: string;
  projectId: string;
  projectStatus: string;
  orgId: string;
  plan: Plan;
  orgStatus: string;
  sessionStatus: string | null;
}

/** Who the token acts as: the agent's role, or its sub-agent's, with the token's scopes and session. */
export interface Identity {
  role: AgentRole;
  scopes: string[];
  subAgentName: string | null;
  sessionId: string | null;
}

/**
 * The identity a token row grants, or null when the token does not work: of another kind than its
 * prefix, revoked, expired (7-day limit or idle), of a revoked agent, an archived project, a suspended
 * organization, bound to a closed session, or a sub-agent token whose parent or sub-agent is revoked.
 */
export function identityOf(row: TokenRow, kind: PrefixKind, now: Date): Identity | null {
  if (row.kind !== kind.tokenKind) return null;
  if (row.revokedAt) return null;
  if (row.expiresAt && row.expiresAt <= now) return null;
  if (row.idleExpiresAt && row.idleExpiresAt <= now) return null;
  if (row.agentStatus === "revoked") return null;
  if (row.projectStatus !== "active") return null;
  if (row.orgStatus !== "active") return null;
  if (row.sessionId && !(OPEN_STATUSES as readonly string[]).includes(row.sessionStatus ?? "")) return null;
  const identity = {
    role: row.role,
    scopes: row.scopes,
    subAgentName: row.subAgentName,
    sessionId: row.sessionId,
  };
  if (kind.actorKind !== "subagent") return identity;
  if (row.parentRevokedAt || !row.subAgentRole || row.subAgentRevokedAt) return null;
  return { ...identity, role: row.subAgentRole };
}

/**
 * A session token acting as one of its agent's sub-agents (`X-Svc-SubAgent`): the sub-agent's name,
 * role and newest open session, and never more than a sub-agent token would carry.
 */
export function asSubAgent(
  identity: Identity,
  sub: { name: string; role: AgentRole },
  ownSessionId: string | null,
): Identity {
  return {
    role: sub.role,
    scopes: (identity.scopes.length === 0 ? [...SUBAGENT_SCOPES] : identity.scopes)
      .filter((s) => (SUBAGENT_SCOPES as string[]).includes(s)),
    subAgentName: sub.name,
    sessionId: ownSessionId,
  };
}

export function actorOf(row: TokenRow, kind: PrefixKind, identity: Identity): Actor {
  return {
    kind: kind.actorKind,
    tokenKind: row.kind,
    tokenId: row.tokenId,
    agentId: row.agentId,
    agentName: row.agentName,
    platform: row.platform,
    role: identity.role,
    projectId: row.projectId,
    orgId: row.orgId,
    plan: row.plan,
    scopes: identity.scopes,
    sessionId: identity.sessionId,
    subAgentName: identity.subAgentName,
    tokenCreatedAt: row.createdAt,
    tokenExpiresAt: row.expiresAt,
  };
}
