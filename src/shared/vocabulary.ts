/**
 * The vocabulary that the database, the domain and the contracts share: each enumeration is written
 * here once, and the tables' column types, the domain's unions and the Zod enums derive from it.
 */

/** Every ledger entry type (spec: Ledger entry), lifecycle types last. */
export const LEDGER_TYPES = [
  "PROGRESS",
  "DECISION",
  "TESTED",
  "BLOCKED",
  "ALERT",
  "FOUND",
  "CONTEXT",
  "STATUS",
  "CHANGED",
  "ISSUE",
  "SKIPPED",
  "DONE",
  "VERIFIED",
  "AGENT_JOINED",
  "AGENT_SPAWNED",
  "AGENT_ASSIGNED",
  "AGENT_COMPLETED",
] as const;
export type LedgerType = typeof LEDGER_TYPES[number];

/** Who wrote a ledger entry. */
export const LEDGER_SOURCES = ["agent", "system"] as const;
export type LedgerSource = typeof LEDGER_SOURCES[number];

/** Severity of an ALERT or ISSUE entry. */
export const LEDGER_SEVERITIES = ["info", "warning", "critical"] as const;
export type LedgerSeverity = typeof LEDGER_SEVERITIES[number];

/** What an agent should do next (context, handoff), in the order the rules try them. */
export const NEXT_ACTIONS = [
  "PICK_TICKET",
  "RESUME_WORK",
  "REQUEST_BRIEF",
  "CREATE_TICKETS",
  "PROJECT_COMPLETE",
  "ALL_DONE",
  "WAIT",
  "ASSIST",
] as const;
export type NextActionKind = typeof NEXT_ACTIONS[number];

/** `{ action, message }`: the next action as context and handoff return it. */
export interface NextAction {
  action: NextActionKind;
  message: string;
}

/** The `action` of PATCH /ticket. */
export const TICKET_ACTIONS = [
  "claim",
  "release",
  "submit_for_review",
  "approve",
  "request_changes",
  "block",
  "unblock",
] as const;
export type TicketAction = typeof TICKET_ACTIONS[number];

/** An agent's role in its project. */
export const AGENT_ROLES = ["generator", "evaluator", "observer", "orchestrator"] as const;
export type AgentRole = typeof AGENT_ROLES[number];
