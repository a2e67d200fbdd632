import { DomainError, fail, type RecoveryAction } from "@/domain/core/errors.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { isUuid } from "@/domain/core/ticket-refs.ts";
import { boardReviewStatus, isReviewStatus } from "@/domain/core/review-mode.ts";
import { closeSessions } from "./close.ts";

/** Closeout items, in the order they are checked and reported. */
export const CLOSEOUT_ITEMS = [
  "ticket_linked",
  "progress_entry",
  "tested_entry",
  "no_blocked_entry",
  "environment_report",
  "ticket_status",
] as const;
type Item = typeof CLOSEOUT_ITEMS[number];

interface Remediation {
  action: RecoveryAction;
  endpoint: string;
  message: string;
}

function remediationFor(item: Item, sessionId: string): Remediation {
  switch (item) {
    case "ticket_linked":
      return {
        action: "BEGIN_TICKET",
        endpoint: "POST /begin",
        message: "Begin a ticket in this session, or close the session with POST /handoff without ticketId",
      };
    case "progress_entry":
      return {
        action: "ADD_REQUIRED_FIELDS",
        endpoint: "POST /ledger",
        message:
          "The session needs a PROGRESS or CHANGED entry: log what you did with POST /ledger (type PROGRESS)",
      };
    case "tested_entry":
      return {
        action: "LOG_TESTED_ENTRY",
        endpoint: "POST /ledger",
        message: "Run the ticket's verificationCommand and log a TESTED entry with the result",
      };
    case "no_blocked_entry":
      return {
        action: "USE_VALID_TRANSITION",
        endpoint: `PATCH /session/${sessionId}`,
        message: "A session with a BLOCKED entry cannot close as complete (the ledger is append-only): " +
          "cancel it with status canceled, or resolve the blocker in a new session",
      };
    case "environment_report":
      return {
        action: "ADD_REQUIRED_FIELDS",
        endpoint: `POST /session/${sessionId}/report`,
        message: "The session needs an environment report: post it (model, platform, git branch...)",
      };
    case "ticket_status":
      return {
        action: "REFRESH_TICKET_STATE",
        endpoint: "GET /ticket",
        message: "The linked ticket must be in_progress or in review: check its status",
      };
  }
}

/**
 * POST /session/complete: closes the caller's own session once every closeout item holds:
 * a linked ticket (set by POST /begin); a PROGRESS or CHANGED entry in the session; a TESTED (or
 * VERIFIED) entry in the session when the ticket has expected files; no BLOCKED entry in the session;
 * an environment report; the ticket in_progress or in a review status. Otherwise 422
 * PRECONDITION_FAILED with `missing`, `completed`, `retryable` (false when only items the agent cannot
 * fix remain: a BLOCKED entry, or a ticket in a terminal status) and one remediation per missing item.
 * Someone else's or an unknown session answers 404 NOT_FOUND. An already complete session answers the
 * same success (idempotent); a canceled one 409 CONFLICT.
 */
export async function completeSession(ctx: ActorCtx, input: { sessionId: string }) {
  const { actor, db } = ctx;
  const notFound = () => fail.notFound(`Cannot find session "${input.sessionId}" among your sessions`);
  if (!isUuid(input.sessionId)) throw notFound();
  const session = await db.selectFrom("sessions").selectAll().where("id", "=", input.sessionId.toLowerCase())
    .where("project_id", "=", actor.projectId).where("agent_id", "=", actor.agentId).executeTakeFirst();
  if (!session) throw notFound();
  const own = session.id === actor.sessionId ||
    (session.sub_agent_name ?? null) === (actor.subAgentName ?? null);
  if (!own) throw notFound();
  if (session.status === "complete") return { ok: true as const, sessionId: session.id };
  if (session.status === "canceled") {
    throw fail.conflict(`Cannot complete session "${session.id}": it was canceled`, {
      sessionStatus: "canceled",
    });
  }

  const ticket = session.ticket_id
    ? await db.selectFrom("tickets as t").innerJoin("projects as p", "p.id", "t.project_id")
      .select(["t.status", "t.expected_files", "p.settings"]).where("t.id", "=", session.ticket_id)
      .executeTakeFirst()
    : undefined;
  const types = new Set(
    (await db.selectFrom("ledger_entries").select("type").distinct().where("session_id", "=", session.id)
      .execute()).map((r) => r.type),
  );
  const state: Record<Item, boolean> = {
    ticket_linked: ticket !== undefined,
    progress_entry: types.has("PROGRESS") || types.has("CHANGED"),
    tested_entry: !ticket || ticket.expected_files.length === 0 || types.has("TESTED") ||
      types.has("VERIFIED"),
    no_blocked_entry: !types.has("BLOCKED"),
    environment_report: session.report !== null,
    ticket_status: ticket !== undefined &&
      (ticket.status === "in_progress" || isReviewStatus(ticket.status) ||
        ticket.status === boardReviewStatus(ticket.settings)),
  };
  const missing = CLOSEOUT_ITEMS.filter((i) => !state[i]);
  if (missing.length > 0) {
    const terminal = ticket !== undefined && (ticket.status === "done" || ticket.status === "cancelled");
    const unfixable = missing.every((i) => i === "no_blocked_entry" || (i === "ticket_status" && terminal));
    throw new DomainError(
      "unprocessable", // PRECONDITION_FAILED: well-formed but refused by a rule (operator decision)
      "PRECONDITION_FAILED",
      `Cannot complete session "${session.id}": closeout outstanding (${missing.join(", ")})`,
      {
        missing,
        completed: CLOSEOUT_ITEMS.filter((i) => state[i]),
        retryable: !unfixable,
        remediation: missing.map((i) => remediationFor(i, session.id)),
      },
    );
  }
  const closed = await db.transaction().execute((trx) =>
    closeSessions(trx, {
      projectId: actor.projectId,
      sessionIds: [session.id],
      status: "complete",
      byAgentId: actor.agentId,
      reason: "closeout",
      now: ctx.clock.now(),
    })
  );
  if (closed.length === 0) {
    // Closed by a concurrent call: complete is the same success, canceled is not.
    const now = await db.selectFrom("sessions").select("status").where("id", "=", session.id)
      .executeTakeFirst();
    if (now?.status !== "complete") {
      throw fail.conflict(`Cannot complete session "${session.id}": it was ${now?.status ?? "removed"}`);
    }
  }
  return { ok: true as const, sessionId: session.id };
}
