import assert from "node:assert/strict";
import type { SprintRow } from "@/domain/sprints/common.ts";
import { sprintChanges } from "@/domain/sprints/update.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { statusOf } from "@/http/errors.ts";
import { test } from "../helpers/mod.ts";

const now = new Date("2026-03-01T09:00:00Z");
const sprint = (over: Partial<SprintRow> = {}) =>
  ({ id: "s1", number: 1, status: "planning", start_date: null, end_date: null, ...over }) as SprintRow;

test("SPRINT-007 sprintChanges(): activating a sprint without a start date starts it now", () => {
  assert.deepEqual(sprintChanges(sprint(), { status: "active" }, now), {
    updated_at: now,
    start_date: now.toISOString(),
    status: "active",
    started_at: now,
  });
  const dated = sprintChanges(sprint({ start_date: "2026-02-27" }), { status: "active" }, now);
  assert.equal("start_date" in dated, false);
});

test("SPRINT-009 sprintChanges(): completing stamps completed_at; an empty goal clears it", () => {
  const set = sprintChanges(sprint({ status: "active" }), { status: "complete", goal: "" }, now);
  assert.equal(set.status, "complete");
  assert.equal(set.completed_at, now);
  assert.equal(set.goal, null);
});

test("SPRINT-019 sprintChanges(): a transition not in the state machine answers 422", () => {
  assert.throws(
    () => sprintChanges(sprint({ status: "complete" }), { status: "active" }, now),
    (e) => e instanceof DomainError && statusOf(e) === 422 && e.details?.currentStatus === "complete",
  );
  assert.throws(
    () => sprintChanges(sprint({ status: "archived" }), { status: "cancelled" }, now),
    DomainError,
  );
});

test("sprintChanges(): an end before the start is refused on the field that was sent", () => {
  const refusedOn = (path: string) => (e: unknown) =>
    e instanceof DomainError && JSON.stringify(e.details?.fields).includes(`"path":"${path}"`);
  assert.throws(
    () => sprintChanges(sprint({ start_date: "2026-03-10" }), { endDate: "2026-03-01" }, now),
    refusedOn("endDate"),
  );
  assert.throws(
    () => sprintChanges(sprint({ end_date: "2026-03-01" }), { startDate: "2026-03-10" }, now),
    refusedOn("startDate"),
  );
  assert.deepEqual(sprintChanges(sprint(), { name: "n", capacityPoints: 5 }, now), {
    updated_at: now,
    name: "n",
    capacity_points: 5,
  });
});
