import type { AgentRole } from "@/db/tables/foundation.ts";

export const ALL_SCOPES = [
  "read:brief",
  "read:ledger",
  "read:board",
  "read:ticket",
  "write:brief",
  "write:claim",
  "write:ledger",
  "write:handoff",
  "write:threads",
  "write:ticket",
  "write:sprint",
  "write:agents",
] as const;
export type Scope = typeof ALL_SCOPES[number];

const SESSION_BASE: Scope[] = [
  "read:brief",
  "read:ledger",
  "read:board",
  "write:claim",
  "write:ledger",
  "write:handoff",
  "write:threads",
  "write:ticket",
  "write:sprint",
];

/** Default scopes of a session token (spec: Authentication, default scopes table). */
export function sessionScopes(role: AgentRole): Scope[] {
  return role === "orchestrator" ? [...SESSION_BASE, "write:agents"] : [...SESSION_BASE];
}

/** A sub-agent has its parent's session scopes but cannot write sprints. */
export const SUBAGENT_SCOPES: Scope[] = SESSION_BASE.filter((s) => s !== "write:sprint");

export const OAUTH_WRITE_SCOPES: Scope[] = ["read:ticket", ...SESSION_BASE];
export const OAUTH_READ_SCOPES: Scope[] = ["read:board", "read:ticket", "read:brief"];
