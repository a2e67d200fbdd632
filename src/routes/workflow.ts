import type { OpenAPIHono } from "@hono/zod-openapi";
import { errorResponses } from "@/contracts/common.ts";
import {
  AddArtifactBody,
  ApproveBody,
  ApproveResponse,
  ARTIFACT_METADATA_MAX_BYTES,
  ArtifactIdPath,
  ArtifactListResponse,
  ArtifactResponse,
  BeginBody,
  BeginResponse,
  PatchArtifactBody,
  PatchTicketBody,
  PatchTicketResponse,
  TicketIdPath,
  WorkflowResponse,
} from "@/contracts/workflow.ts";
import { approveTicket } from "@/domain/tickets/approve.ts";
import { addArtifact, listArtifacts, patchArtifact } from "@/domain/tickets/artifacts.ts";
import { beginTicket } from "@/domain/tickets/begin.ts";
import { patchTicket } from "@/domain/tickets/patch.ts";
import { getWorkflow } from "@/domain/tickets/workflow-info.ts";
import type { AppEnv } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";

const BOARD_DESIGN =
  "Board (design, TKT-038/TKT-069): the default board is backlog, claimed, in_progress, blocked, needs_review, " +
  "review, changes_requested, done, cancelled, with the spec's transition table; changes_requested is the " +
  "reviewer's outcome (review to changes_requested; from it: in_progress, backlog, cancelled). in_review, qa and " +
  "sprint_backlog are column names a custom board may declare (settings.columns); on the default board they " +
  "are unknown statuses. A custom board's statuses are its columns plus backlog and cancelled (always " +
  "present); a ticket moves to the previous or next column, backlog, blocked (when a column) and cancelled, " +
  "and from review, in_review or qa also to done, changes_requested and in_progress when they are columns. " +
  "done and cancelled are terminal on every board. GET /workflow returns the caller's board as data.";

export const patchTicketRoute = defineRoute({
  method: "patch",
  path: "/ticket",
  tags: ["Tickets"],
  summary: "Update a ticket: fields, assignment, and one status move (action or status)",
  description: "Scope write:ticket. At least one field besides ticketId (and expectedStatus), else 400. " +
    "`action` wins over `status`. " + BOARD_DESIGN + " " +
    "Who may change what: orchestrators anything (but never claim: action claim or assignToSelf answers 403 " +
    "FORBIDDEN with guidance and recovery MINT_SUBAGENT_SESSION); any other agent may claim an unassigned " +
    "ticket (assignToSelf, or action claim); the assignee changes their own ticket; the designated reviewer " +
    "(reviewerAgentId) moves a ticket in review, in_review or qa to done (through approval outside light), " +
    "changes_requested or in_progress (also actions approve in light and request_changes) and may attach a " +
    "reviewHandoff; title and description only by the assignee, the creator or an orchestrator; everyone " +
    "else 403 FORBIDDEN. A human-only ticket answers 403 with code VALIDATION_ERROR. " +
    "Checks, in order: human-only, orchestrator claim, assignment conflict, unknown status, permissions (before " +
    "anything about the ticket's state is revealed), then the guards. Unknown status: 400 VALIDATION_ERROR " +
    "(details.validStatuses, recovery USE_VALID_STATUS); " +
    "a terminal ticket 422 INVALID_TRANSITION; a status or action target equal to the current status 409 " +
    "CONFLICT (details.observedStatus, reason ALREADY_IN_STATUS, recovery REFRESH_TICKET_STATE: the move has " +
    "happened); guard 4 outside light: any move to done 403 FORBIDDEN (recovery APPROVE_VIA_ENDPOINT when the " +
    "ticket is in review, else REQUEST_REVIEW), also action approve outside light (TKT-077); an illegal move " +
    "422 INVALID_TRANSITION (details.validTransitions, recovery USE_VALID_TRANSITION; actions add " +
    "details.validActions); guard 3 in medium, strict and auto: entering in_progress needs acknowledged " +
    "criteria (400 VALIDATION_ERROR, recovery ACKNOWLEDGE_CRITERIA, or ADD_CRITERIA when there are none); " +
    "guard 5 outside light: entering review, in_review, qa or done needs a TESTED or VERIFIED ledger entry " +
    "on the ticket (400 VALIDATION_ERROR, recovery LOG_TESTED_ENTRY); entering a review status (review, " +
    "in_review, qa, needs_review) from outside review needs a complete reviewHandoff, sent or stored (400 " +
    "REVIEW_HANDOFF_MISSING, details.fields, recovery ATTACH_REVIEW_HANDOFF); guard 7: a done ticket's title " +
    "and description cannot be edited (422 VALIDATION_ERROR, details.fields). Guard 6: the whole write is " +
    "one conditional UPDATE on the status (and assignee) read at the start; a concurrent change answers 409 " +
    "CONFLICT with details.observedStatus and recovery REFRESH_TICKET_STATE, and nothing is written. " +
    "assignToSelf on a ticket another agent holds: 409 CONFLICT. Side effects: entering review from outside " +
    "(submit_for_review or a status write) releases the caller's own claims on the ticket; reaching done or " +
    "cancelled releases every claim on it; leaving review for work clears the stored reviewHandoff. " +
    "reviewHistory items are { event: submitted | changes_requested | approved, agentId, agentName, from, to, " +
    "at, handoff?, comment? }. Unknown ticket: 404 TICKET_NOT_FOUND (recovery RESOLVE_TICKET_REF).",
  request: { body: { required: true, content: { "application/json": { schema: PatchTicketBody } } } },
  responses: {
    200: {
      description: "The updated ticket",
      content: { "application/json": { schema: PatchTicketResponse } },
    },
    ...errorResponses(404, 409, 422),
  },
}, { scope: "write:ticket", cost: 3 });

export const approveTicketRoute = defineRoute({
  method: "post",
  path: "/ticket/{ticketId}/approve",
  tags: ["Tickets"],
  summary: "Approve a ticket in review (the approve endpoint of every review mode)",
  description: "Scope write:ticket (design, TKT-077/TKT-016). Moves a ticket in review, in_review, qa or " +
    "needs_review to done with a compare-and-swap write, records { event: approved, comment? } in " +
    "reviewHistory, sets the approver as reviewer when none was designated, and releases every claim on the " +
    "ticket. Who may approve (reviewer routing by riskClass): an orchestrator; the designated reviewer; when " +
    "none is designated and the mode is not strict, any agent other than the assignee whose role the risk " +
    "class accepts (local: generator or evaluator; shared-state: evaluator; irreversible: nobody, designate " +
    "a reviewer first). The assignee never approves their own ticket outside light. Guard 5 applies outside " +
    "light (400 VALIDATION_ERROR, recovery LOG_TESTED_ENTRY). Open or failed tests of the latest QA run are " +
    "reported in `warnings`, never a refusal. Errors: 403 FORBIDDEN (not allowed to approve), 403 " +
    "VALIDATION_ERROR (human-only), 404 TICKET_NOT_FOUND (the path takes the UUID, never the key), 409 " +
    "CONFLICT (already done, expectedStatus differs, or status changed during the call; recovery " +
    "REFRESH_TICKET_STATE), 422 INVALID_TRANSITION (not in review: recovery REQUEST_REVIEW; cancelled).",
  request: {
    params: TicketIdPath,
    body: { required: false, content: { "application/json": { schema: ApproveBody } } },
  },
  responses: {
    200: { description: "Approved", content: { "application/json": { schema: ApproveResponse } } },
    ...errorResponses(404, 409, 422),
  },
}, { scope: "write:ticket", cost: 3 });

export const addArtifactRoute = defineRoute({
  method: "post",
  path: "/ticket/{ticketId}/artifacts",
  tags: ["Tickets"],
  summary: "Attach an artifact (pull request, branch, commit, deploy) to a ticket",
  description:
    "Scope write:ticket (design, TKT-194). The assignee, reviewer, creator or an orchestrator may " +
    "attach (else 403). url must be http(s). An artifact with the same type and url on the ticket is updated " +
    "in place (sent fields replace) and answers 200; a new one answers 201. New pull_request, branch and " +
    "deploy artifacts start `open`, commits `closed`; board rows count open artifacts (hasOpenArtifacts). " +
    "For a pull request, metadata.reviewDecision CHANGES_REQUESTED marks an unresolved review block. " +
    `Errors: 400 VALIDATION_ERROR (metadata over ${
      ARTIFACT_METADATA_MAX_BYTES / 1024
    } KB, bad url), 403 FORBIDDEN, 404 TICKET_NOT_FOUND.`,
  request: {
    params: TicketIdPath,
    body: { required: true, content: { "application/json": { schema: AddArtifactBody } } },
  },
  responses: {
    200: {
      description: "Existing artifact updated",
      content: { "application/json": { schema: ArtifactResponse } },
    },
    201: { description: "Artifact attached", content: { "application/json": { schema: ArtifactResponse } } },
    ...errorResponses(404),
  },
}, { scope: "write:ticket", cost: 3 });

export const listArtifactsRoute = defineRoute({
  method: "get",
  path: "/ticket/{ticketId}/artifacts",
  tags: ["Tickets"],
  summary: "List a ticket's artifacts, oldest first",
  description:
    "Scope read:board (design, TKT-194). Response { artifacts, total, open }. Unknown ticket: 404 " +
    "TICKET_NOT_FOUND.",
  request: { params: TicketIdPath },
  responses: {
    200: { description: "The artifacts", content: { "application/json": { schema: ArtifactListResponse } } },
    ...errorResponses(404),
  },
}, { scope: "read:board", cost: 3 });

export const patchArtifactRoute = defineRoute({
  method: "patch",
  path: "/ticket/{ticketId}/artifacts/{artifactId}",
  tags: ["Tickets"],
  summary: "Update an artifact's status, ref, title or metadata",
  description: "Scope write:ticket (design, TKT-194). Same permission as attaching. status open, merged or " +
    "closed; ref and title null clear; metadata replaces. At least one field. Errors: 400, 403, 404 " +
    "TICKET_NOT_FOUND, 404 NOT_FOUND (artifact not on this ticket).",
  request: {
    params: ArtifactIdPath,
    body: { required: true, content: { "application/json": { schema: PatchArtifactBody } } },
  },
  responses: {
    200: { description: "Updated", content: { "application/json": { schema: ArtifactResponse } } },
    ...errorResponses(404),
  },
}, { scope: "write:ticket", cost: 3 });

export const beginRoute = defineRoute({
  method: "post",
  path: "/begin",
  tags: ["Tickets"],
  summary: "Begin a ticket: claim files and start it, atomically (tool svc_ticket_begin)",
  description:
    "Scope write:ticket, generator role (another role: 403 FORBIDDEN with guidance; orchestrators " +
    "get recovery MINT_SUBAGENT_SESSION). Design (TKT-187): in ONE transaction, acknowledges the criteria " +
    "when acknowledgeCriteria is true, claims `files` for the ticket, moves it to in_progress with the " +
    "caller as assignee (from any open status; a ticket already in progress and unassigned or the caller's " +
    "is re-begun without a status write), links the caller's session to the ticket, and writes an " +
    "AGENT_ASSIGNED entry when the caller became assignee. Any refusal leaves nothing half-applied. Errors: " +
    "400 VALIDATION_ERROR (body; guard 3 in medium, strict and auto: unacknowledged criteria give recovery " +
    "ACKNOWLEDGE_CRITERIA with details.acceptanceCriteria and details.nextStep to retry with " +
    "acknowledgeCriteria: true; no criteria give recovery ADD_CRITERIA with details.nextStep to call POST " +
    "/ticket/{id}/acknowledge (svc_ticket_acknowledge) with additionalCriteria); 403 FORBIDDEN (role), 403 " +
    "VALIDATION_ERROR (human-only ticket); 404 TICKET_NOT_FOUND (recovery RESOLVE_TICKET_REF); 409 CONFLICT " +
    "(a file held by another identity: details.conflicts as POST /claim; the ticket assigned to another " +
    "agent; or its status changed during the call: details.observedStatus, recovery REFRESH_TICKET_STATE); " +
    "422 INVALID_TRANSITION (done or cancelled ticket, or a board without in_progress). `files` takes " +
    "directory (`src/auth/`) and symbol (`src/a.ts#parse`) entries as POST /claim does (extension, issue 24): " +
    "an entry that overlaps another identity's claim is a 409 CONFLICT. Claim wait queue " +
    "(extension): a file other agents wait for (POST /claim with waitSeconds) is granted to them first, so " +
    "begin answers 409 CONFLICT with details.queue { waiting }; wait with POST /claim, then begin.",
  request: { body: { required: true, content: { "application/json": { schema: BeginBody } } } },
  responses: {
    200: { description: "Begun", content: { "application/json": { schema: BeginResponse } } },
    ...errorResponses(404, 409, 422),
  },
}, { scope: "write:ticket", roles: ["generator"], cost: 2 });

export const workflowRoute = defineRoute({
  method: "get",
  path: "/workflow",
  tags: ["Tickets"],
  summary: "The project's board as data: statuses, transitions, actions, review guards",
  description: "Scope read:board (design). " + BOARD_DESIGN,
  responses: {
    200: { description: "The workflow", content: { "application/json": { schema: WorkflowResponse } } },
  },
}, { scope: "read:board", cost: 1 });

/** Ticket state machine: PATCH /ticket, approve, begin, artifacts and the workflow description. */
export function registerWorkflow(api: OpenAPIHono<AppEnv>): void {
  handle(api, patchTicketRoute, async ({ c, ctx, body }) => ok(c, await patchTicket(ctx, body)));
  handle(
    api,
    approveTicketRoute,
    async ({ c, ctx, params, body }) => ok(c, await approveTicket(ctx, params.ticketId, body ?? {})),
  );
  handle(api, addArtifactRoute, async ({ c, ctx, params, body }) => {
    const result = await addArtifact(ctx, params.ticketId, body);
    return ok(c, result.artifact, result.created ? 201 : 200);
  });
  handle(
    api,
    listArtifactsRoute,
    async ({ c, ctx, params }) => ok(c, await listArtifacts(ctx, params.ticketId)),
  );
  handle(
    api,
    patchArtifactRoute,
    async ({ c, ctx, params, body }) =>
      ok(c, await patchArtifact(ctx, params.ticketId, params.artifactId, body)),
  );
  handle(api, beginRoute, async ({ c, ctx, body }) => ok(c, await beginTicket(ctx, body)));
  handle(api, workflowRoute, async ({ c, ctx }) => ok(c, await getWorkflow(ctx)));
}
