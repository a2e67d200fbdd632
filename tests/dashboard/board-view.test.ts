import assert from "node:assert/strict";
import { boardCard, boardColumnsOf } from "@/domain/dashboard/board.ts";

const now = new Date("2026-11-25T12:00:00Z");
const row = {
  id: "t1",
  number: 7,
  title: "Fix login",
  status: "in_progress",
  type: "bug",
  tags: [],
  sub_agent_name: "worker-1",
  human_only: false,
  status_changed_at: new Date("2026-11-24T12:00:00Z"),
  last_ledger_at: null,
  last_review: null,
  assignee_name: "alice",
  reviewer_name: null,
};

Deno.test("dashboard card: key from the prefix, sub-agent after its parent, stale when in progress and quiet", () => {
  const card = boardCard(row, "WEB", now);
  assert.equal(card.key, "WEB-7");
  assert.equal(card.assigneeName, "alice/worker-1");
  assert.equal(card.stale, true);
  assert.equal(boardCard({ ...row, last_ledger_at: now }, "WEB", now).stale, false);
  assert.equal(boardCard({ ...row, status: "backlog" }, "WEB", now).stale, false);
  assert.equal(boardCard({ ...row, assignee_name: null }, "WEB", now).assigneeName, null);
});

Deno.test("dashboard columns: the workflow's columns in order, then other statuses, each with its total and cards", () => {
  const card = boardCard(row, "WEB", now);
  const columns = boardColumnsOf({}, [{ status: "in_progress", n: 3 }, { status: "legacy", n: 1 }], [card]);
  const names = columns.map((c) => c.status);
  assert.ok(names.indexOf("backlog") < names.indexOf("in_progress"));
  assert.equal(names.at(-1), "legacy");
  const inProgress = columns.find((c) => c.status === "in_progress")!;
  assert.equal(inProgress.total, 3);
  assert.deepEqual(inProgress.cards, [card]);
  assert.equal(columns.find((c) => c.status === "backlog")!.total, 0);
});
