import assert from "node:assert/strict";
import { checkApprovable, qaWarnings } from "@/domain/tickets/approve.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { statusOf } from "@/http/errors.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import { test } from "../helpers/mod.ts";

const reviewer = { agentId: "r1", role: "generator" } as Actor;
const ticket = (over: Partial<TicketRow> = {}) =>
  ({
    id: "t1",
    status: "review",
    assignee_agent_id: "a1",
    reviewer_agent_id: "r1",
    created_by_agent_id: "o1",
    risk_class: "local",
    tags: [],
    ...over,
  }) as unknown as TicketRow;
const project = { settings: {}, mode: "medium" as const };

function refusedWith(fn: () => void, status: number, code: string): DomainError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof DomainError, String(caught));
  assert.equal(statusOf(caught), status);
  assert.equal(caught.code, code);
  return caught;
}

test("TKT-077 checkApprovable(): only a ticket in review, by its reviewer; done is a 409 ALREADY_IN_STATUS", () => {
  checkApprovable(reviewer, ticket(), project, undefined);
  checkApprovable(reviewer, ticket(), project, "review");
  refusedWith(() => checkApprovable(reviewer, ticket(), project, "in_progress"), 409, "CONFLICT");
  const done = refusedWith(
    () => checkApprovable(reviewer, ticket({ status: "done" }), project, undefined),
    409,
    "CONFLICT",
  );
  assert.equal(done.details?.reason, "ALREADY_IN_STATUS");
  refusedWith(
    () => checkApprovable(reviewer, ticket({ status: "cancelled" }), project, undefined),
    422,
    "INVALID_TRANSITION",
  );
  const early = refusedWith(
    () => checkApprovable(reviewer, ticket({ status: "in_progress" }), project, undefined),
    422,
    "INVALID_TRANSITION",
  );
  assert.equal((early.details?.recovery as { action: string }).action, "REQUEST_REVIEW");
});

test("TKT-081 checkApprovable(): the assignee cannot approve their own ticket outside light", () => {
  const assignee = { agentId: "a1", role: "generator" } as Actor;
  const own = ticket({ reviewer_agent_id: null });
  refusedWith(() => checkApprovable(assignee, own, project, undefined), 403, "FORBIDDEN");
  checkApprovable(assignee, own, { ...project, mode: "light" }, undefined);
});

test("qaWarnings(): failed then pending tests of the latest QA run, none without a run", () => {
  assert.deepEqual(qaWarnings(null), []);
  assert.deepEqual(qaWarnings({ qaRunId: "q", status: "open", pendingTests: 2, failedTests: 1 }), [
    "QA run q has 1 failed test(s)",
    "QA run q has 2 pending test(s)",
  ]);
  assert.deepEqual(qaWarnings({ qaRunId: "q", status: "passed", pendingTests: 0, failedTests: 0 }), []);
});
