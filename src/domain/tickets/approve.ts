import type { z } from "zod";
import { lockProjectClaims } from "@/domain/core/claim-lock.ts";
import type { ApproveBody } from "@/contracts/workflow.ts";
import { sql } from "kysely";
import type { Trx } from "@/db/database.ts";
import { releaseClaims } from "@/domain/claims/release.ts";
import type { Actor } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { DomainError, recovery } from "@/domain/core/errors.ts";
import { approvalRefusal, assertNotHumanOnly } from "./permissions.ts";
import { isUuid, pathTicketNotFound } from "@/domain/core/ticket-refs.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import { loadProject, type ProjectBoard, reviewEntry } from "./ticket-context.ts";
import { checkTested } from "@/domain/core/transitions.ts";
import {
  appendReviewHistory,
  invalidTransitionError,
  isReviewStatus,
  isTerminal,
  moveStatus,
  statusConflictError,
  validTransitions,
} from "@/domain/core/workflow.ts";

/** POST /ticket/{ticketId}/approve's body, as the route has parsed it. */
export type ApproveInput = z.output<typeof ApproveBody>;

/** Loads a ticket of the caller's project by path id inside the transaction, or 404. */
export async function ticketByPathId(trx: Trx, projectId: string, ref: string) {
  const ticket = isUuid(ref)
    ? await trx.selectFrom("tickets").selectAll().where("id", "=", ref.toLowerCase())
      .where("project_id", "=", projectId).executeTakeFirst()
    : undefined;
  if (!ticket) throw pathTicketNotFound(ref);
  return ticket;
}

/**
 * The refusals of an approval, in order: expected status (guard 6), human-only, already done, terminal,
 * not in review, not allowed to approve in this review mode. Guard 5 (needs the ledger) comes after.
 */
export function checkApprovable(
  actor: Actor,
  ticket: TicketRow,
  project: Pick<ProjectBoard, "settings" | "mode">,
  expectedStatus: string | undefined,
): void {
  if (expectedStatus !== undefined && expectedStatus !== ticket.status) {
    throw statusConflictError(ticket.id, expectedStatus, ticket.status);
  }
  assertNotHumanOnly(ticket);
  if (ticket.status === "done") {
    const error = statusConflictError(
      ticket.id,
      "done",
      "done",
      "The ticket is already done; nothing was written",
    );
    error.details!.reason = "ALREADY_IN_STATUS";
    throw error;
  }
  if (isTerminal(ticket.status)) throw invalidTransitionError(project.settings, ticket.status, "done");
  if (!isReviewStatus(ticket.status)) {
    throw new DomainError(
      "unprocessable",
      "INVALID_TRANSITION",
      `Only a ticket in review can be approved; it is "${ticket.status}"`,
      {
        from: ticket.status,
        to: "done",
        validTransitions: validTransitions(project.settings, ticket.status),
        recovery: recovery(
          "REQUEST_REVIEW",
          "PATCH /ticket",
          "The assignee submits the ticket for review first",
          {
            ticketId: ticket.id,
            action: "submit_for_review",
            reviewHandoff: { summary: "<summary>", changedFiles: ["<path>"], branch: "<branch>" },
          },
        ),
      },
    );
  }
  const refusal = approvalRefusal(actor, ticket, project.mode);
  if (refusal) throw refusal;
}

type QaSummary = { qaRunId: string; status: string; pendingTests: number; failedTests: number };

/** The latest QA run's failed and pending tests, reported as warnings and never a refusal. */
export function qaWarnings(qa: QaSummary | null): string[] {
  const warnings: string[] = [];
  if (qa && qa.failedTests > 0) warnings.push(`QA run ${qa.qaRunId} has ${qa.failedTests} failed test(s)`);
  if (qa && qa.pendingTests > 0) warnings.push(`QA run ${qa.qaRunId} has ${qa.pendingTests} pending test(s)`);
  return warnings;
}

/**
 * POST /ticket/{ticketId}/approve (design: TKT-077): the approval path of every review mode. Moves a
 * ticket in a review status to `done` with a compare-and-swap write, records the approval in
 * reviewHistory, makes the approver the reviewer when none was designated and releases every claim on
 * the ticket. Guard 5 applies outside `light`. The latest QA run's open or failed tests are reported
 * as warnings, never a refusal.
 */
export async function approveTicket(ctx: ActorCtx, ticketRef: string, input: ApproveInput) {
  const { actor } = ctx;
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (trx) => {
    // First: an approval releases claims and grants waiters (one lock order with the wait queue).
    await lockProjectClaims(trx, actor.projectId);
    const ticket = await ticketByPathId(trx, actor.projectId, ticketRef);
    const project = await loadProject(trx, actor.projectId);
    checkApprovable(actor, ticket, project, input.expectedStatus);
    await checkTested(trx, project.mode, ticket, "done");
    const approval = reviewEntry(
      actor,
      "approved",
      ticket.status,
      "done",
      now,
      input.comment ? { comment: input.comment } : {},
    );
    const row = await moveStatus(trx, {
      projectId: actor.projectId,
      ticketId: ticket.id,
      number: ticket.number,
      from: ticket.status,
      to: "done",
      now,
      agentId: actor.agentId,
      set: {
        reviewer_agent_id: ticket.reviewer_agent_id ?? actor.agentId,
        review_history: appendReviewHistory(approval),
      },
      eventData: { action: "approve", ticketRef: `${project.prefix}-${ticket.number}` },
    });
    const releasedFiles = await releaseClaims(trx, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      ticketId: ticket.id,
      anyHolder: true,
      sessionId: actor.sessionId,
      now,
    });
    const qa = await latestQa(trx, ticket.id);
    return {
      id: row.id,
      number: row.number,
      ticketRef: `${project.prefix}-${row.number}`,
      status: "done" as const,
      previousStatus: ticket.status,
      reviewerAgentId: row.reviewer_agent_id,
      approvedAt: now.toISOString(),
      releasedFiles,
      qa,
      warnings: qaWarnings(qa),
    };
  });
}

async function latestQa(trx: Trx, ticketId: string): Promise<QaSummary | null> {
  const run = await trx.selectFrom("qa_runs").select(["id", "status"]).where("ticket_id", "=", ticketId)
    .orderBy("created_at", "desc").limit(1).executeTakeFirst();
  if (!run) return null;
  const counts = await trx.selectFrom("qa_tests")
    .select([
      sql<number>`count(*) filter (where status = 'pending')::int`.as("pending"),
      sql<number>`count(*) filter (where status = 'failed')::int`.as("failed"),
    ])
    .where("qa_run_id", "=", run.id).executeTakeFirstOrThrow();
  return { qaRunId: run.id, status: run.status, pendingTests: counts.pending, failedTests: counts.failed };
}
