import type { AgentRole } from "@/db/tables/foundation.ts";
import type { CallerSituation } from "@/domain/core/silence.ts";
import { silenceWarning } from "@/domain/core/silence.ts";

export interface PendingAction {
  action: string;
  message: string;
  blocking: boolean;
  endpoint: string;
}

export interface GuidanceFacts {
  role: AgentRole;
  situation: CallerSituation;
  activeTicket: {
    ticketRef: string;
    status: string;
    criteriaCount: number;
    criteriaAcknowledged: boolean;
    hasTestedEntry: boolean;
  } | null;
  criteriaAckRequired: boolean;
  expiringClaims: number;
  expiredClaims: number;
  yourReviews: number;
  sessionOpen: boolean;
  sessionReported: boolean;
  envBroken: boolean;
}

/**
 * What the caller must or should do now (CTX-031 design), most urgent first. `blocking` marks what makes
 * the service refuse the caller's next writes (LEDGER_STALE) or the next status move (criteria).
 */
export function pendingActions(f: GuidanceFacts): PendingAction[] {
  const out: PendingAction[] = [];
  const silence = silenceWarning(f.situation);
  if (silence) {
    out.push({
      action: "LOG_LEDGER_ENTRY",
      message: silence.stale
        ? `Silent for ${silence.minutesSilent} minutes while holding work: writes are refused with LEDGER_STALE ` +
          "until you log a ledger entry"
        : `Silent for ${silence.minutesSilent} minutes; writes will be refused after ${silence.thresholdMinutes}`,
      blocking: silence.stale,
      endpoint: "POST /ledger",
    });
  }
  const t = f.activeTicket;
  if (t && f.criteriaAckRequired && !t.criteriaAcknowledged && t.status !== "in_progress") {
    out.push({
      action: t.criteriaCount > 0 ? "ACKNOWLEDGE_CRITERIA" : "ADD_CRITERIA",
      message: `${t.ticketRef} needs acknowledged acceptance criteria before it can move to in_progress`,
      blocking: true,
      endpoint: "POST /ticket/{id}/acknowledge",
    });
  }
  if (f.expiredClaims > 0 || f.expiringClaims > 0) {
    out.push({
      action: "RENEW_CLAIMS",
      message: `${f.expiredClaims} of your claims expired and ${f.expiringClaims} expire within 5 minutes: ` +
        "claim the files again to keep them",
      blocking: false,
      endpoint: "POST /claim",
    });
  }
  if (t && t.status === "in_progress" && !t.hasTestedEntry) {
    out.push({
      action: "LOG_TESTED_ENTRY",
      message: `${t.ticketRef} has no TESTED entry yet; review needs one`,
      blocking: false,
      endpoint: "POST /ledger",
    });
  }
  if (f.yourReviews > 0) {
    out.push({
      action: "REVIEW_TICKETS",
      message: `${f.yourReviews} ticket(s) wait for your review (see yourReviews)`,
      blocking: false,
      endpoint: "PATCH /ticket",
    });
  }
  if (f.sessionOpen && t && !f.sessionReported) {
    out.push({
      action: "SUBMIT_ENV_REPORT",
      message: "Report your environment (branch, head, uncommitted files): session closeout needs it",
      blocking: false,
      endpoint: "POST /session/{sessionId}/report",
    });
  }
  if (f.envBroken) {
    out.push({
      action: "FIX_ENVIRONMENT",
      message: "Your last envHealth report says broken: fix it or log BLOCKED",
      blocking: false,
      endpoint: "POST /ledger",
    });
  }
  return out;
}

/** Short role- and state-specific advice (CTX-031 design). */
export function guidanceFor(role: AgentRole, thresholdMinutes: number, hasActiveTicket: boolean): string[] {
  const byRole: Record<AgentRole, string> = {
    generator: hasActiveTicket
      ? "Resume your active ticket: work only on its expected files, log PROGRESS as you go, TESTED with the " +
        "verification command, then POST /handoff."
      : "Pick a ticket from the workqueue and POST /begin with its files; that claims them and starts the ticket.",
    evaluator:
      "Review the tickets in pendingReviews and yourReviews: check the evidence in the ledger, then move " +
      "them to done, changes_requested or in_progress with PATCH /ticket.",
    observer:
      "You observe: read context, the board and the ledger; write findings to the ledger or a thread.",
    orchestrator:
      "You coordinate: create and order tickets, mint generator sub-agents (POST /subagent/session) " +
      "for the work, and watch GET /events instead of claiming files yourself.",
  };
  return [
    byRole[role],
    `Log a ledger entry at least every ${thresholdMinutes} minutes while you hold claims or an in-progress ticket.`,
    "Never edit a file another agent has claimed (openClaims, GET /claim/check); open a thread instead.",
    "Poll GET /events with pollingHint.cursor to follow changes between context calls.",
  ];
}
