import type { z } from "zod";
import type { QaResultsBody } from "@/contracts/handoff.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail, recovery } from "@/domain/core/errors.ts";
import { isUuid } from "@/domain/core/ticket-refs.ts";
import { getQaRun } from "./qa.ts";

/** POST /qa/{qaRunId}/results' body, as the route has parsed it. */
export type QaResultsInput = z.output<typeof QaResultsBody>;

/** A run's status from its tests: failed if any failed, passed once none is pending, else pending. */
function runStatus(statuses: string[]): "pending" | "passed" | "failed" {
  if (statuses.includes("failed")) return "failed";
  return statuses.includes("pending") ? "pending" : "passed";
}

/**
 * POST /qa/{qaRunId}/results (design, completes HAND-051): records the outcome and evidence of tests of a
 * QA run, in one transaction with the run locked. The ticket's assignee cannot verify its own work (403
 * FORBIDDEN). A criterionIndex the run has no test for: 422 VALIDATION_ERROR, nothing written. The run is
 * `failed` when a test failed, `passed` once no test is pending (`completedAt` set, event
 * `qa_run.completed`), else `pending`. Results may be recorded again (a re-test) while the run exists.
 */
export async function recordQaResults(ctx: ActorCtx, qaRunId: string, input: QaResultsInput) {
  const { actor } = ctx;
  const notFound = () => fail.notFound(`Cannot find QA run "${qaRunId}" in this project`);
  if (!isUuid(qaRunId)) throw notFound();
  const now = ctx.clock.now();
  const runId = await ctx.db.transaction().execute(async (trx) => {
    const run = await trx.selectFrom("qa_runs as r").innerJoin("tickets as t", "t.id", "r.ticket_id")
      .select(["r.id", "r.status", "r.ticket_id", "t.assignee_agent_id"])
      .where("r.id", "=", qaRunId.toLowerCase()).where("t.project_id", "=", actor.projectId)
      .forUpdate("r").executeTakeFirst();
    if (!run) throw notFound();
    if (run.assignee_agent_id === actor.agentId) {
      throw fail.forbidden(
        `Cannot record results of QA run "${run.id}": the ticket is yours to fix, not to verify`,
        {
          recovery: recovery(
            "REQUEST_REVIEW",
            "POST /handoff",
            "QA results come from a reviewer: hand the ticket off to review and let another agent record them",
          ),
        },
      );
    }
    const tests = await trx.selectFrom("qa_tests").select(["id", "criterion_index", "status"])
      .where("qa_run_id", "=", run.id).execute();
    const byIndex = new Map(tests.map((t) => [t.criterion_index, t]));
    const unknown = input.tests.filter((t) => !byIndex.has(t.criterionIndex)).map((t) => t.criterionIndex);
    if (unknown.length > 0) {
      throw fail.unprocessable(`QA run "${run.id}" has no test for criterionIndex ${unknown.join(", ")}`, {
        fields: unknown.map((i) => ({
          path: "tests",
          message: `No test for criterionIndex ${i}`,
          code: "custom",
        })),
        validCriterionIndexes: tests.map((t) => t.criterion_index),
      });
    }
    const statuses = new Map(tests.map((t) => [t.criterion_index, t.status]));
    for (const result of input.tests) {
      await trx.updateTable("qa_tests")
        .set({ status: result.status, evidence: result.evidence, updated_at: now })
        .where("id", "=", byIndex.get(result.criterionIndex)!.id).execute();
      statuses.set(result.criterionIndex, result.status);
    }
    const status = runStatus([...statuses.values()]);
    await trx.updateTable("qa_runs")
      .set({ status, completed_at: status === "pending" ? null : now })
      .where("id", "=", run.id).execute();
    if (status !== "pending" && run.status !== status) {
      await recordEvent(trx, {
        projectId: actor.projectId,
        kind: "qa_run.completed",
        entityType: "qa_run",
        entityId: run.id,
        agentId: actor.agentId,
        data: { ticketId: run.ticket_id, status },
        now,
      });
    }
    return run.id;
  });
  return await getQaRun(ctx, runId);
}
