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

/** A ledger read's `source` filter: one source, or `all`. */
export const LEDGER_SOURCE_FILTERS = [...LEDGER_SOURCES, "all"] as const;
export type LedgerSourceFilter = typeof LEDGER_SOURCE_FILTERS[number];

/** A QA run's status, and a QA test's (which may also be skipped). */
export const QA_RUN_STATUSES = ["pending", "passed", "failed"] as const;
export const QA_TEST_STATUSES = [...QA_RUN_STATUSES, "skipped"] as const;

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

/** Where a project stands, derived from its brief and board (PAIR-023, CTX-021). */
export const PROJECT_PHASES = ["setup", "planning", "building", "reviewing", "complete"] as const;
export type ProjectPhaseName = typeof PROJECT_PHASES[number];

/** How much review a project asks before a ticket is done (spec: review modes). */
export const REVIEW_MODES = ["light", "medium", "strict", "auto", "custom"] as const;
export type ReviewMode = typeof REVIEW_MODES[number];

/** An organization's plan (spec: plans and limits). */
export const PLANS = ["free", "builder", "growth", "team", "enterprise"] as const;
export type Plan = typeof PLANS[number];

/** What a ticket artifact points at. */
export const ARTIFACT_TYPES = ["pull_request", "branch", "commit", "deploy"] as const;
export type ArtifactType = typeof ARTIFACT_TYPES[number];

/** A claim holder's state: active, or in the grace period after its session ended. */
export const CLAIM_HOLD_STATUSES = ["active", "grace_period"] as const;
export type ClaimHoldStatus = typeof CLAIM_HOLD_STATUSES[number];

/** The scopes an OAuth client may ask for (spec: Authorize `scope`). */
export const OAUTH_SCOPES = ["read", "write"] as const;
export type OAuthScope = typeof OAUTH_SCOPES[number];

/** The OAuth grant types the authorization server supports. */
export const OAUTH_GRANT_TYPES = ["authorization_code", "refresh_token"] as const;

/** A ticket's CI state as its artifacts report it (`unknown` when none does). */
export const CI_STATES = ["unknown", "pending", "passing", "failing"] as const;
export type CiState = typeof CI_STATES[number];

/** The status of one item of a session's plan. */
export const PLAN_ITEM_STATUSES = ["pending", "in_progress", "completed", "canceled"] as const;
export type PlanItemStatus = typeof PLAN_ITEM_STATUSES[number];

/** A thread is open until it is closed (with an outcome). */
export const THREAD_STATUSES = ["open", "closed"] as const;
export type ThreadStatus = typeof THREAD_STATUSES[number];

/** An agent's role in its project. */
export const AGENT_ROLES = ["generator", "evaluator", "observer", "orchestrator"] as const;
export type AgentRole = typeof AGENT_ROLES[number];

/** A user's role in a project (members of the dashboard and the OAuth sign-in). */
export const MEMBER_ROLES = ["admin", "member", "viewer"] as const;
export type MemberRole = typeof MEMBER_ROLES[number];

/** The statuses an operator may set on an organization and on a project. */
export const ORG_STATUSES = ["active", "suspended"] as const;
export const PROJECT_STATUSES = ["active", "archived"] as const;
