import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { errorResponses } from "@/contracts/common.ts";
import {
  HandoffBody,
  HandoffResponse,
  QaResultsBody,
  QaRunListResponse,
  QaRunResponse,
  SessionCompleteBody,
  SessionCompleteResponse,
} from "@/contracts/handoff.ts";
import { TicketIdPath } from "@/contracts/workflow.ts";
import { handoff } from "@/domain/handoff/handoff.ts";
import { TRIVIAL_MAX_FILES, TRIVIAL_MAX_LINES } from "@/domain/core/review-mode.ts";
import { notGenerator } from "@/domain/handoff/preconditions.ts";
import { getQaRun, listQaRuns } from "@/domain/handoff/qa.ts";
import { recordQaResults } from "@/domain/handoff/qa-results.ts";
import { completeSession } from "@/domain/sessions/complete.ts";
import type { AppEnv } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";

export const handoffRoute = defineRoute({
  method: "post",
  path: "/handoff",
  tags: ["Handoff"],
  summary: "Hand off work: advance the ticket, release claims, complete the session",
  description:
    "Scope write:handoff, generator role (any other role: 403 FORBIDDEN, recovery MINT_SUBAGENT_SESSION). " +
    "Preconditions, in order: sessionId is yours (else 400 VALIDATION_ERROR); a repeat for a session that " +
    "already has a DONE entry answers 200 { ok, modulesDone, duplicate: true } and writes nothing (reachable " +
    "with an API key; a session token was revoked by the first handoff, so a repeat with it answers 401); a " +
    "closed session without DONE entry: 409 CONFLICT; at least one PROGRESS entry in the session (else 400 " +
    "VALIDATION_ERROR, details.missing [progress_entry], recovery ADD_REQUIRED_FIELDS at POST /ledger). With ticketId (UUID or key; unknown: 404 " +
    "TICKET_NOT_FOUND): human-only 403 FORBIDDEN (recovery HANDOFF_WITHOUT_TICKET); done or cancelled 409 " +
    "CONFLICT; assigned to another agent 403 FORBIDDEN, recovery HANDOFF_WITHOUT_TICKET (omit ticketId to " +
    "close your session); never started (backlog, claimed, sprint_backlog) 422 INVALID_TRANSITION, recovery " +
    "BEGIN_TICKET; unassigned and no open claim of yours on it 403 FORBIDDEN, recovery BEGIN_TICKET (an " +
    "unassigned ticket with your open claim is adopted: you become assignee); any other status than " +
    "in_progress or a review status 422 INVALID_TRANSITION (blocked: recovery USE_VALID_TRANSITION, unblock). " +
    "An agent and its sub-agents are one identity. Effects, in ONE transaction: artifacts stored on the " +
    "ticket (same type and URL: updated in place; without ticketId they are kept in the DONE payload only); diffStat logged as PROGRESS; one compare-and-swap ticket move (review mode light: done; medium " +
    "and strict: the board's review status, in_review if the board has it, else review; auto: review unless " +
    "the change is trivial, i.e. riskClass local, no criterion requiring evidence, at most " +
    `${TRIVIAL_MAX_FILES} files touched and, when diffStat gives line counts, at most ${TRIVIAL_MAX_LINES} ` +
    "lines changed, which goes to done; custom: review " +
    "unless project settings reviewConfig.blocking is false, which goes to done; a ticket already in review " +
    "stays there); when review is required and criteria have requiresEvidence, a QA run with one pending " +
    "test per such criterion; every claim of the identity released and a STATUS entry listing the files; a " +
    "DONE entry (payload.moduleName) and an AGENT_COMPLETED entry; the session completed and its token " +
    "revoked; toolResults queued and classified after the response into PROGRESS and TESTED entries, " +
    "skipping duplicates. A ticket status changed during the call: 409 CONFLICT, recovery " +
    "REFRESH_TICKET_STATE, nothing written. Warnings never block: no TESTED entry (never a refusal), TESTED " +
    "entries not mentioning verificationCommand (unless n/a), a pull_request artifact whose metadata " +
    "reviewDecision is CHANGES_REQUESTED (unresolved PR review block), released files no ledger entry " +
    "mentions by fileRef or in its content, in any letter case as claims compare paths (unlogged work). nextAction, first match: RESUME_WORK (another ticket of yours in progress), " +
    "PICK_TICKET (unassigned ticket ready), REQUEST_BRIEF (blank brief), CREATE_TICKETS (empty board), " +
    "PROJECT_COMPLETE (all done or cancelled), WAIT (tickets in review), ASSIST (others working), ALL_DONE. " +
    "When the caller's token belonged to the session handed off (it no longer works), the message starts by " +
    "saying so: pair again with a new code (POST /pair/connect) before any call it names.\n\n" +
    "Coverage receipt (extension, issue 25): `changedFiles` (up to 500 paths or `{ file, fence }`) is compared " +
    "with every file this session held at any time (released ones count) and the files you hold now; the " +
    "answer carries `coverage { covered[], uncovered[], ratio }`, stored in the ticket's " +
    "`reviewHandoff.coverage` (GET /ticket, the evaluator's GET /context) and in the DONE entry's payload. " +
    "Uncovered files are a warning; with the project setting `requireClaimCoverage` they refuse the handoff " +
    "with 409 COVERAGE_INCOMPLETE (an extension of the spec's codes; `details.files`, `details.coverage`, " +
    "recovery CLAIM_FILES, an extension of the spec's list: claim them, then hand off again), nothing " +
    "written, the session open and the ticket unmoved. A `fence` that is no longer current for its file " +
    "(the claim ended, or another claim holds the file now): 409 FENCE_STALE (extension) with `details { " +
    "file, yourFence, currentFence?, holder? }` and recovery RECLAIM_FILES (extension), nothing written.",
  request: { body: { required: true, content: { "application/json": { schema: HandoffBody } } } },
  responses: {
    200: { description: "Handed off", content: { "application/json": { schema: HandoffResponse } } },
    ...errorResponses(404, 409, 422),
  },
}, { scope: "write:handoff", roles: ["generator"], refuseRole: notGenerator, cost: 2 });

export const sessionCompleteRoute = defineRoute({
  method: "post",
  path: "/session/complete",
  tags: ["Pairing and sessions"],
  summary: "Close your session once its closeout is done",
  description:
    "Scope write:ledger. Body { sessionId }: your own session; another agent's or an unknown one answers " +
    "404 NOT_FOUND. Closeout items (details.missing / details.completed, in this order): ticket_linked " +
    "(POST /begin links the ticket), progress_entry (a PROGRESS or CHANGED entry in the session), " +
    "tested_entry (a TESTED or VERIFIED entry in the session, when the ticket has expected files), " +
    "no_blocked_entry (no BLOCKED entry in the session), environment_report (POST /session/:id/report), " +
    "ticket_status (the ticket is in_progress or in a review status). Outstanding items answer HTTP 422 " +
    "with code PRECONDITION_FAILED (operator decision: the status is 422, a well-formed request refused by " +
    "a rule) and details { missing[], completed[], retryable, remediation[] { action, endpoint, message } }; " +
    "retryable is false when only a BLOCKED entry or a done/cancelled ticket remain. Success { ok: true, " +
    "sessionId }: the session is complete and its token revoked. An already complete session answers the " +
    "same success; a canceled one 409 CONFLICT.",
  request: { body: { required: true, content: { "application/json": { schema: SessionCompleteBody } } } },
  responses: {
    200: {
      description: "Session completed",
      content: { "application/json": { schema: SessionCompleteResponse } },
    },
    ...errorResponses(404, 409),
    422: {
      ...errorResponses(422)[422]!,
      description:
        "PRECONDITION_FAILED: closeout outstanding; details { missing[], completed[], retryable, " +
        "remediation[] { action, endpoint, message } }",
    },
  },
}, { scope: "write:ledger", cost: 2 });

export const getQaRunRoute = defineRoute({
  method: "get",
  path: "/qa/{qaRunId}",
  tags: ["Handoff"],
  summary: "Read one QA run",
  description: "Scope read:board. A QA run is created by a handoff that needs review when criteria require " +
    "evidence: one test per such criterion. Unknown or other project's run: 404 NOT_FOUND.",
  request: { params: z.object({ qaRunId: z.string().openapi({ param: { name: "qaRunId", in: "path" } }) }) },
  responses: {
    200: { description: "The QA run", content: { "application/json": { schema: QaRunResponse } } },
    ...errorResponses(404),
  },
}, { scope: "read:board", cost: 1 });

export const postQaResultsRoute = defineRoute({
  method: "post",
  path: "/qa/{qaRunId}/results",
  tags: ["Handoff"],
  summary: "Record QA test outcomes (the reviewer's evidence per criterion)",
  description: "Scope write:ticket (design: the spec shows no QA write; this completes HAND-051's QA " +
    "endpoints). Body `tests`: 1 to 50 of `{ criterionIndex, status (passed, failed or " +
    "skipped), evidence (1 to 2000) }`, each naming a test of the run by its criterionIndex. Answers the " +
    "run: `failed` when a test failed, `passed` once no test is pending (`completedAt` set), else " +
    "`pending`; results may be recorded again. The ticket's assignee cannot verify its own work: 403 " +
    "FORBIDDEN, recovery REQUEST_REVIEW. A criterionIndex the run has no test for: 422 VALIDATION_ERROR " +
    "(`details.validCriterionIndexes`), nothing written. Unknown or other project's run: 404 NOT_FOUND. " +
    "A run leaving `pending` records the event `qa_run.completed` (an extension of the spec's event kinds).",
  request: {
    params: z.object({ qaRunId: z.string().openapi({ param: { name: "qaRunId", in: "path" } }) }),
    body: { content: { "application/json": { schema: QaResultsBody } }, required: true },
  },
  responses: {
    200: { description: "The QA run afterwards", content: { "application/json": { schema: QaRunResponse } } },
    ...errorResponses(404, 422),
  },
}, { scope: "write:ticket", cost: 2 });

export const listQaRunsRoute = defineRoute({
  method: "get",
  path: "/ticket/{ticketId}/qa",
  tags: ["Handoff"],
  summary: "List a ticket's QA runs, newest first",
  description: "Scope read:board. ticketId is the ticket UUID, never the key. Unknown ticket: 404 " +
    "TICKET_NOT_FOUND (recovery RESOLVE_TICKET_REF; for a key it reads the ticket by key, for its id).",
  request: { params: TicketIdPath },
  responses: {
    200: {
      description: "The ticket's QA runs",
      content: { "application/json": { schema: QaRunListResponse } },
    },
    ...errorResponses(404),
  },
}, { scope: "read:board", cost: 3 });

/** Handoff, session closeout and QA reads. */
export function registerHandoff(api: OpenAPIHono<AppEnv>): void {
  handle(api, handoffRoute, async ({ c, ctx, body }) => ok(c, await handoff(ctx, body)));
  handle(api, sessionCompleteRoute, async ({ c, ctx, body }) => ok(c, await completeSession(ctx, body)));
  handle(api, getQaRunRoute, async ({ c, ctx, params }) => ok(c, await getQaRun(ctx, params.qaRunId)));
  handle(
    api,
    postQaResultsRoute,
    async ({ c, ctx, params, body }) => ok(c, await recordQaResults(ctx, params.qaRunId, body)),
  );
  handle(api, listQaRunsRoute, async ({ c, ctx, params }) => ok(c, await listQaRuns(ctx, params.ticketId)));
}
