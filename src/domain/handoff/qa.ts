import type { Trx } from "@/db/database.ts";
import type { QA_RUN_STATUSES, QA_TEST_STATUSES } from "@/shared/vocabulary.ts";
import type { AcceptanceCriterion } from "@/db/tables/work.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";
import { isUuid, pathTicketNotFound } from "@/domain/core/ticket-refs.ts";

/** Criteria that need evidence, with their index in the ticket's list. */
export function evidenceCriteria(criteria: AcceptanceCriterion[]): { index: number; title: string }[] {
  return criteria.flatMap((c, index) =>
    c.requiresEvidence === true ? [{ index, title: criterionTitle(c, index) }] : []
  );
}

function criterionTitle(c: AcceptanceCriterion, index: number): string {
  const title = typeof c.title === "string" && c.title !== "" ? c.title : c.text;
  return typeof title === "string" && title !== "" ? title : `Criterion ${index + 1}`;
}

/** Creates a QA run with one pending test per criterion that requires evidence. */
export async function createQaRun(
  trx: Trx,
  input: {
    projectId: string;
    ticketId: string;
    sessionId: string;
    agentId: string;
    criteria: { index: number; title: string }[];
    now: Date;
  },
): Promise<string> {
  const id = crypto.randomUUID();
  await trx.insertInto("qa_runs").values({
    id,
    ticket_id: input.ticketId,
    session_id: input.sessionId,
    agent_id: input.agentId,
    status: "pending",
    created_at: input.now,
  }).execute();
  await trx.insertInto("qa_tests").values(input.criteria.map((c) => ({
    id: crypto.randomUUID(),
    qa_run_id: id,
    criterion_index: c.index,
    title: c.title,
    status: "pending",
    evidence: null,
    updated_at: input.now,
  }))).execute();
  await recordEvent(trx, {
    projectId: input.projectId,
    kind: "qa_run.created",
    entityType: "qa_run",
    entityId: id,
    agentId: input.agentId,
    data: { ticketId: input.ticketId, tests: input.criteria.length },
    now: input.now,
  });
  return id;
}

type RunStatus = typeof QA_RUN_STATUSES[number];
type TestStatus = typeof QA_TEST_STATUSES[number];

function asRunStatus(s: string): RunStatus {
  return s === "passed" || s === "failed" ? s : "pending";
}
function asTestStatus(s: string): TestStatus {
  return s === "passed" || s === "failed" || s === "skipped" ? s : "pending";
}

async function loadRuns(ctx: ActorCtx, where: { runId?: string; ticketId?: string }) {
  let q = ctx.db.selectFrom("qa_runs as r").innerJoin("tickets as t", "t.id", "r.ticket_id")
    .selectAll("r").where("t.project_id", "=", ctx.actor.projectId);
  if (where.runId) q = q.where("r.id", "=", where.runId);
  if (where.ticketId) q = q.where("r.ticket_id", "=", where.ticketId);
  const runs = await q.orderBy("r.created_at", "desc").orderBy("r.id").execute();
  if (runs.length === 0) return [];
  const tests = await ctx.db.selectFrom("qa_tests").selectAll()
    .where("qa_run_id", "in", runs.map((r) => r.id)).orderBy("criterion_index").execute();
  return runs.map((r) => ({
    qaRunId: r.id,
    ticketId: r.ticket_id,
    sessionId: r.session_id,
    agentId: r.agent_id,
    status: asRunStatus(r.status),
    createdAt: r.created_at.toISOString(),
    completedAt: r.completed_at?.toISOString() ?? null,
    tests: tests.filter((t) => t.qa_run_id === r.id).map((t) => ({
      id: t.id,
      criterionIndex: t.criterion_index,
      title: t.title,
      status: asTestStatus(t.status),
      evidence: t.evidence,
      updatedAt: t.updated_at.toISOString(),
    })),
  }));
}

/** One QA run of the caller's project (design: HAND-051). */
export async function getQaRun(ctx: ActorCtx, qaRunId: string) {
  const notFound = () => fail.notFound(`Cannot find QA run "${qaRunId}" in this project`);
  if (!isUuid(qaRunId)) throw notFound();
  const [run] = await loadRuns(ctx, { runId: qaRunId.toLowerCase() });
  if (!run) throw notFound();
  return run;
}

/** Every QA run of a ticket, newest first (design: HAND-051). */
export async function listQaRuns(ctx: ActorCtx, ticketId: string) {
  if (!isUuid(ticketId)) throw pathTicketNotFound(ticketId);
  const ticket = await ctx.db.selectFrom("tickets").select("id").where("id", "=", ticketId.toLowerCase())
    .where("project_id", "=", ctx.actor.projectId).executeTakeFirst();
  if (!ticket) throw pathTicketNotFound(ticketId);
  return { runs: await loadRuns(ctx, { ticketId: ticket.id }) };
}
