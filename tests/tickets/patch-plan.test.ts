import assert from "node:assert/strict";
import type { PatchTicketInput } from "@/contracts/workflow.ts";
import {
  changedFields,
  decideMove,
  mergedHandoff,
  reviewColumns,
  reviewEvent,
  suggestions,
} from "@/domain/tickets/patch-plan.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { statusOf } from "@/http/errors.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import { test } from "../helpers/mod.ts";

const actor = (over: Partial<Actor> = {}) =>
  ({ agentId: "a1", agentName: "gen", role: "generator", ...over }) as Actor;
const ticket = (over: Partial<TicketRow> = {}) =>
  ({
    id: "t1",
    number: 1,
    title: "Login",
    status: "in_progress",
    assignee_agent_id: "a1",
    reviewer_agent_id: null,
    created_by_agent_id: "o1",
    acceptance_criteria: [],
    done_definition: null,
    verification_command: null,
    risk_class: null,
    review_handoff: null,
    ...over,
  }) as TicketRow;
const patch = (over: Partial<PatchTicketInput>) => ({ ticketId: "t1", ...over }) as PatchTicketInput;

function refused(fn: () => unknown, status: number, code: string) {
  assert.throws(fn, (e) => e instanceof DomainError && statusOf(e) === status && e.code === code);
}

test("changedFields() counts fields, not ticketId, expectedStatus or false flags", () => {
  assert.deepEqual(changedFields(patch({ expectedStatus: "backlog", assignToSelf: false, title: "x" })), [
    "title",
  ]);
  assert.deepEqual(changedFields(patch({ unassign: true })), ["unassign"]);
  assert.deepEqual(changedFields(patch({})), []);
});

test("TKT-098 decideMove() refuses editing the title of a done ticket (guard 7)", () => {
  const done = ticket({ status: "done" });
  refused(() => decideMove(actor(), done, {}, patch({ title: "x" }), ["title"]), 422, "VALIDATION_ERROR");
  assert.deepEqual(decideMove(actor(), done, {}, patch({ branch: "b" }), ["branch"]).to, null);
});

test("TKT-101 decideMove(): permissions come before the move, an orchestrator passes them", () => {
  const other = actor({ agentId: "a2" });
  refused(() => decideMove(other, ticket(), {}, patch({ status: "review" }), ["status"]), 403, "FORBIDDEN");
  refused(() => decideMove(other, ticket(), {}, patch({ unassign: true }), ["unassign"]), 403, "FORBIDDEN");
  const orch = actor({ agentId: "o9", role: "orchestrator" });
  assert.deepEqual(decideMove(orch, ticket(), {}, patch({ status: "review" }), ["status"]), {
    action: undefined,
    to: "review",
    claiming: false,
    unassigning: false,
  });
  refused(
    () => decideMove(actor(), ticket(), {}, patch({ status: "nowhere" }), ["status"]),
    400,
    "VALIDATION_ERROR",
  );
});

test("decideMove(): releasing an assigned backlog ticket only unassigns", () => {
  const backlog = ticket({ status: "backlog" });
  assert.deepEqual(decideMove(actor(), backlog, {}, patch({ action: "release" }), ["action"]), {
    action: "release",
    to: null,
    claiming: false,
    unassigning: true,
  });
});

test("reviewEvent() and reviewColumns(): submission, approval, changes requested", () => {
  assert.equal(reviewEvent("in_progress", "review"), "submitted");
  assert.equal(reviewEvent("review", "done"), "approved");
  assert.equal(reviewEvent("in_review", "in_progress"), "changes_requested");
  assert.equal(reviewEvent("in_progress", "done"), null);
  const now = new Date("2026-01-01T00:00:00Z");
  assert.deepEqual(reviewColumns(actor(), "in_progress", "blocked", patch({}), null, now), {});
  const back = reviewColumns(actor(), "review", "in_progress", patch({}), null, now);
  assert.equal(back.review_handoff, null);
  assert.ok(back.review_history !== undefined);
  assert.equal("review_handoff" in reviewColumns(actor(), "review", "done", patch({}), null, now), false);
});

test("mergedHandoff() lays the sent fields over the stored handoff", () => {
  const stored = ticket({ review_handoff: { summary: "old", branch: "b" } as TicketRow["review_handoff"] });
  assert.deepEqual(mergedHandoff(stored, patch({})), { summary: "old", branch: "b" });
  assert.deepEqual(mergedHandoff(stored, patch({ reviewHandoff: { summary: "new", branch: undefined } })), {
    summary: "new",
    branch: "b",
  });
  assert.equal(mergedHandoff(ticket(), patch({})), null);
});

test("TKT-158 suggestions() fills only the agent-first fields the ticket lacks and the body does not send", () => {
  const t = ticket({ acceptance_criteria: [{ title: "works" }] });
  assert.deepEqual(suggestions(t, patch({})), {
    done_definition: '"Login" is done when: works',
    verification_command: "n/a",
    risk_class: "local",
  });
  assert.deepEqual(suggestions(t, patch({ riskClass: "shared-state", verificationCommand: "deno test" })), {
    done_definition: '"Login" is done when: works',
  });
  const full = ticket({ done_definition: "d", verification_command: "v", risk_class: "local" });
  assert.deepEqual(suggestions(full, patch({})), {});
});
