import assert from "node:assert/strict";
import { type BeginInput, beginResponse, planBegin } from "@/domain/tickets/begin-plan.ts";
import { DomainError } from "@/domain/core/errors.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import type { ProjectBoard } from "@/domain/tickets/ticket-context.ts";
import { test } from "../helpers/mod.ts";

const now = new Date("2026-01-01T12:00:00Z");
const actor = { agentId: "a1", subAgentName: null };
const project = (over: Partial<ProjectBoard> = {}): ProjectBoard => ({
  id: "p1",
  prefix: "PRJ",
  mode: "medium",
  settings: {},
  ...over,
});
const ticket = (over: Partial<TicketRow> = {}) =>
  ({
    id: "t1",
    number: 4,
    status: "sprint_backlog",
    assignee_agent_id: null,
    acceptance_criteria: [{ title: "c" }],
    criteria_acknowledged_at: null,
    verification_command: null,
    ...over,
  }) as TicketRow;
const input = (over: Partial<BeginInput> = {}): BeginInput => ({
  ticketId: "PRJ-4",
  files: ["a.ts"],
  ...over,
});

function refused(fn: () => unknown, code: string, check: (e: DomainError) => boolean = () => true) {
  assert.throws(fn, (e) => e instanceof DomainError && e.code === code && check(e));
}

test("TKT-185 planBegin() acknowledges the criteria before the guard, so the move passes", () => {
  const plan = planBegin(actor, ticket(), project(), input({ acknowledgeCriteria: true }), now);
  assert.equal(plan.moving, true);
  assert.equal(plan.acknowledging, true);
  assert.deepEqual(plan.set, {
    assignee_agent_id: "a1",
    sub_agent_name: null,
    criteria_acknowledged_at: now,
  });
  assert.equal(plan.ref, "PRJ-4");
});

test("MCP-056 planBegin() refuses unacknowledged criteria with the criteria and a retry nextStep", () => {
  refused(
    () => planBegin(actor, ticket(), project(), input(), now),
    "VALIDATION_ERROR",
    (e) => {
      const details = e.details as {
        acceptanceCriteria: unknown;
        nextStep: { payload: { acknowledgeCriteria: boolean } };
      };
      return details.acceptanceCriteria !== undefined &&
        details.nextStep.payload.acknowledgeCriteria === true;
    },
  );
});

test("MCP-057 planBegin() refuses a ticket without criteria with a nextStep to svc_ticket_acknowledge", () => {
  refused(
    () =>
      planBegin(
        actor,
        ticket({ acceptance_criteria: [] }),
        project(),
        input({ acknowledgeCriteria: true }),
        now,
      ),
    "VALIDATION_ERROR",
    (e) => (e.details as { nextStep: { tool: string } }).nextStep.tool === "svc_ticket_acknowledge",
  );
});

test("planBegin() refuses a terminal ticket, then a board without in_progress, before the criteria", () => {
  refused(() => planBegin(actor, ticket({ status: "done" }), project(), input(), now), "INVALID_TRANSITION");
  const noColumn = project({ settings: { columns: ["todo", "review", "done"] } });
  refused(() => planBegin(actor, ticket(), noColumn, input(), now), "INVALID_TRANSITION");
});

test("planBegin() re-begins a ticket in progress without a move and clears a review handoff", () => {
  const again = planBegin(actor, ticket({ status: "in_progress" }), project(), input(), now);
  assert.equal(again.moving, false);
  assert.equal(again.acknowledging, false);
  const fromReview = planBegin(
    actor,
    ticket({ status: "review", criteria_acknowledged_at: now }),
    project(),
    input(),
    now,
  );
  assert.equal(fromReview.moving, true);
  assert.deepEqual(fromReview.set, { assignee_agent_id: "a1", sub_agent_name: null, review_handoff: null });
});

test("TKT-186 beginResponse() has ticket { id, status }, sessionId and nextAction", () => {
  const plan = planBegin(actor, ticket({ status: "in_progress" }), project(), input(), now);
  const body = beginResponse(ticket({ verification_command: "deno test" }), plan, "s1", []);
  assert.deepEqual(body.ticket, { id: "t1", status: "in_progress" });
  assert.equal(body.sessionId, "s1");
  assert.equal(body.criteriaAcknowledged, false);
  assert.match(body.nextAction.message, /Work on PRJ-4: .*\(run: deno test\)/);
});
