import type { AgentRole, Plan, TokenKind } from "@/db/tables/foundation.ts";

export type ActorKind = "session" | "api_key" | "subagent" | "oauth";

/** The authenticated caller: one agent, in one project, with a set of scopes. */
export interface Actor {
  kind: ActorKind;
  tokenKind: TokenKind | "oauth_access";
  tokenId: string;
  agentId: string;
  agentName: string;
  platform: string | null;
  role: AgentRole;
  projectId: string;
  orgId: string;
  plan: Plan;
  /** Empty means unrestricted, except for OAuth actors (whose list is never unrestricted). */
  scopes: string[];
  sessionId: string | null;
  /** Set when acting as a sub-agent (svc_sub_ token or X-Svc-SubAgent header). */
  subAgentName: string | null;
  tokenCreatedAt: Date;
  tokenExpiresAt: Date | null;
}

export function hasScope(actor: Pick<Actor, "kind" | "scopes">, scope: string): boolean {
  // An OAuth token is never "unrestricted": only the scopes it lists count.
  if (actor.kind === "oauth") return actor.scopes.includes(scope);
  return actor.scopes.length === 0 || actor.scopes.includes(scope);
}

/** Display name: `agentName` or `agentName/subAgentName`. */
export function actorDisplayName(actor: Pick<Actor, "agentName" | "subAgentName">): string {
  return identityName(actor.agentName, actor.subAgentName);
}

/** How an identity is shown: `agent/sub-agent` for a sub-agent, the agent's name otherwise (null stays null). */
export function identityName(agentName: string, subAgentName: string | null | undefined): string;
export function identityName(
  agentName: string | null,
  subAgentName: string | null | undefined,
): string | null;
export function identityName(
  agentName: string | null,
  subAgentName: string | null | undefined,
): string | null {
  return agentName !== null && subAgentName ? `${agentName}/${subAgentName}` : agentName;
}
