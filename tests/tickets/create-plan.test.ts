import assert from "node:assert/strict";
import { newTicketRow, planCreate } from "@/domain/tickets/create.ts";
import type { ProjectInfo } from "@/domain/tickets/project-info.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { test } from "../helpers/mod.ts";

const project = (settings: ProjectInfo["settings"] = {}) =>
  ({ id: "p", prefix: "APP", settings }) as ProjectInfo;
const actor = { projectId: "p", agentId: "a1", subAgentName: "w1" };
const now = new Date("2026-01-01T00:00:00Z");

test("TKT-121 planCreate(): a single create starts in backlog, a batch row with assignToSelf in claimed (when the board has it)", () => {
  assert.equal(planCreate(project(), { title: "t" }, "single").status, "backlog");
  assert.equal(planCreate(project(), { title: "t", assignToSelf: true }, "batch").status, "claimed");
  const custom = project({ columns: ["todo", "doing", "done"] });
  assert.equal(planCreate(custom, { title: "t", assignToSelf: true }, "batch").status, "backlog");
});

test("planCreate(): tags deduplicated with the priority tag, at most 10; criteria trimmed, none in a batch", () => {
  const plan = planCreate(project(), {
    title: "t",
    tags: ["a", "a", "b"],
    priority: "high",
    acceptanceCriteria: [{ text: " works " }],
  }, "single");
  assert.deepEqual(plan.tags.slice(0, 2), ["a", "b"]);
  assert.equal(plan.tags.length, 3);
  assert.deepEqual(plan.criteria, [{ text: " works ", title: "works" }]);
  assert.deepEqual(
    planCreate(project(), { title: "t", acceptanceCriteria: [{ title: "x" }] }, "batch").criteria,
    [],
  );
  const many = Array.from({ length: 10 }, (_, i) => `t${i}`);
  assert.throws(
    () => planCreate(project(), { title: "t", tags: many, priority: "low" }, "single"),
    (e) => e instanceof DomainError && e.code === "VALIDATION_ERROR",
  );
  assert.equal(planCreate(project(), { title: "t", tags: many, priority: "low" }, "batch").tags.length, 10);
});

test("TKT-114 newTicketRow(): assignToSelf assigns the creator and acknowledges the criteria", () => {
  const input = { title: "t", assignToSelf: true, acceptanceCriteria: [{ title: "c" }], branch: "b" };
  const plan = planCreate(project(), input, "single");
  const row = newTicketRow(actor, input, "single", plan, { id: "id1", number: 7, now });
  assert.equal(row.number, 7);
  assert.equal(row.assignee_agent_id, "a1");
  assert.equal(row.sub_agent_name, "w1");
  assert.equal(row.criteria_acknowledged_at, now);
  assert.equal(row.branch, "b");
  const plain = newTicketRow(actor, { title: "t", branch: "b" }, "batch", plan, {
    id: "id2",
    number: 8,
    now,
  });
  assert.equal(plain.assignee_agent_id, null);
  assert.equal(plain.criteria_acknowledged_at, null);
  assert.equal(plain.branch, null, "a batch row applies no branch");
  assert.equal(plain.created_by_agent_id, "a1");
});
