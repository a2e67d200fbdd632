import assert from "node:assert/strict";
import { call, env, test } from "../helpers/mod.ts";
import { ticketRow } from "../helpers/fixtures.ts";
import { board, HANDOFF, patch, ticket } from "./fixtures.ts";

test("TKT-143 PATCH /ticket requires ticketId", async () => {
  const b = await board();
  const res = await patch(b.dev.token, { title: "x" });
  assert.equal(res.status, 400);
  assert.ok(res.body.error.details.fields.some((f: { path: string }) => f.path === "ticketId"));
});

test("TKT-159 a PATCH with no field besides ticketId answers 400", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId });
  for (const body of [{}, { assignToSelf: false }, { expectedStatus: "backlog" }]) {
    const res = await patch(b.dev.token, { ticketId: t.id, ...body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
});

test("TKT-168 an unknown ticket answers 404 TICKET_NOT_FOUND with RESOLVE_TICKET_REF", async () => {
  const b = await board();
  for (const ref of [crypto.randomUUID(), `${b.prefix}-999`]) {
    const res = await patch(b.dev.token, { ticketId: ref, priority: "high" });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, "TICKET_NOT_FOUND");
    assert.equal(res.body.error.details.recovery.action, "RESOLVE_TICKET_REF");
  }
  const other = await board();
  const t = await ticket(other, { assignee: other.dev.agentId });
  assert.equal((await patch(b.orchestrator.token, { ticketId: t.id, priority: "high" })).status, 404);
});

test("TKT-167 the response has exactly the documented fields", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId });
  const res = await patch(b.dev.token, { ticketId: t.ref, title: "Renamed" });
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(Object.keys(res.body.data).sort(), [
    "assigneeAgentId",
    "description",
    "id",
    "number",
    "reviewerAgentId",
    "status",
    "ticketRef",
    "title",
    "updatedAt",
  ]);
  assert.equal(res.body.data.ticketRef, t.ref);
  assert.equal(res.body.data.title, "Renamed");
});

test("TKT-147 reviewHandoff: changedFiles 1 to 200 paths, prUrl optional", async () => {
  const b = await board({ reviewMode: "light" });
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  const files = (n: number) => Array.from({ length: n }, (_, i) => `src/f${i}.ts`);
  for (const n of [0, 201]) {
    const res = await patch(b.dev.token, {
      ticketId: t.id,
      reviewHandoff: { ...HANDOFF, changedFiles: files(n) },
    });
    assert.equal(res.status, 400, `${n} files`);
  }
  const max = await patch(b.dev.token, {
    ticketId: t.id,
    reviewHandoff: { ...HANDOFF, changedFiles: files(200), prUrl: "https://git.example/pr/1" },
  });
  assert.equal(max.status, 200, max.text);
  const row = await ticketRow(t.id);
  assert.equal(row.review_handoff.changedFiles.length, 200);
  assert.equal(row.review_handoff.prUrl, "https://git.example/pr/1");
  // The stored handoff satisfies a later submission.
  const submit = await patch(b.dev.token, { ticketId: t.id, action: "submit_for_review" });
  assert.equal(submit.status, 200, submit.text);
});

test("TKT-148 entering a review status without a complete handoff: 400 REVIEW_HANDOFF_MISSING", async () => {
  const b = await board({ reviewMode: "light" });
  for (const to of ["review", "needs_review"]) {
    const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
    const res = await patch(b.dev.token, {
      ticketId: t.id,
      status: to,
      reviewHandoff: { summary: "s", branch: "b" },
    });
    assert.equal(res.status, 400, to);
    assert.equal(res.body.error.code, "REVIEW_HANDOFF_MISSING");
    assert.deepEqual(res.body.error.details.fields, ["changedFiles"]);
    assert.equal(res.body.error.details.recovery.action, "ATTACH_REVIEW_HANDOFF");
  }
});

test("TKT-149 assignToSelf on a ticket another agent holds answers 409 CONFLICT", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId });
  const res = await patch(b.other.token, { ticketId: t.id, assignToSelf: true });
  assert.equal(res.status, 409);
  assert.equal(res.body.error.code, "CONFLICT");
  assert.equal(res.body.error.details.assigneeAgentId, b.dev.agentId);
});

test("TKT-150 unassign and assignToSelf together answer 400", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId });
  const res = await patch(b.dev.token, { ticketId: t.id, unassign: true, assignToSelf: true });
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, "VALIDATION_ERROR");
});

test("TKT-150 unassign clears the assignee (assignee or orchestrator only)", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  assert.equal((await patch(b.other.token, { ticketId: t.id, unassign: true })).status, 403);
  const res = await patch(b.dev.token, { ticketId: t.id, unassign: true });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.assigneeAgentId, null);
  assert.equal(res.body.data.status, "in_progress");
});

test("TKT-151 reviewerAgentId: set by the assignee or an orchestrator, null clears, others 403", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId, riskClass: "local" });
  const byOther = await patch(b.other.token, { ticketId: t.id, reviewerAgentId: b.evaluator.agentId });
  assert.equal(byOther.status, 403);
  const set = await patch(b.dev.token, { ticketId: t.id, reviewerAgentId: b.evaluator.agentId });
  assert.equal(set.status, 200, set.text);
  assert.equal(set.body.data.reviewerAgentId, b.evaluator.agentId);
  const orch = await patch(b.orchestrator.token, { ticketId: t.id, reviewerAgentId: b.other.agentId });
  assert.equal(orch.status, 200, orch.text);
  const cleared = await patch(b.dev.token, { ticketId: t.id, reviewerAgentId: null });
  assert.equal(cleared.body.data.reviewerAgentId, null);
});

test("TKT-016 reviewer routing by riskClass on designation", async () => {
  const b = await board();
  const local = await ticket(b, { assignee: b.dev.agentId, riskClass: "local" });
  const self = await patch(b.dev.token, { ticketId: local.id, reviewerAgentId: b.dev.agentId });
  assert.equal(self.status, 400, "the assignee cannot review their own ticket");
  const shared = await ticket(b, { assignee: b.dev.agentId, riskClass: "shared-state" });
  const gen = await patch(b.dev.token, { ticketId: shared.id, reviewerAgentId: b.other.agentId });
  assert.equal(gen.status, 400, "shared-state needs an evaluator or orchestrator");
  assert.deepEqual(gen.body.error.details.allowedRoles, ["evaluator", "orchestrator"]);
  assert.equal(
    (await patch(b.dev.token, { ticketId: shared.id, reviewerAgentId: b.evaluator.agentId })).status,
    200,
  );
  const unknown = await patch(b.dev.token, { ticketId: local.id, reviewerAgentId: crypto.randomUUID() });
  assert.equal(unknown.status, 400);
  // Raising the risk class in the same request is checked against the new class.
  const raise = await patch(b.dev.token, {
    ticketId: local.id,
    riskClass: "irreversible",
    reviewerAgentId: b.other.agentId,
  });
  assert.equal(raise.status, 400);
});

test("TKT-152 title on update is 1 to 500 characters", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId });
  assert.equal((await patch(b.dev.token, { ticketId: t.id, title: "" })).status, 400);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, title: "t".repeat(501) })).status, 400);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, title: "t" })).status, 200);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, title: "t".repeat(500) })).status, 200);
  assert.equal((await ticketRow(t.id)).title.length, 500);
});

test("TKT-153 description on update is at most 5000 characters", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId });
  assert.equal((await patch(b.dev.token, { ticketId: t.id, description: "d".repeat(5001) })).status, 400);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, description: "d".repeat(5000) })).status, 200);
  assert.equal((await ticketRow(t.id)).description.length, 5000);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, description: null })).status, 200);
  assert.equal((await ticketRow(t.id)).description, null);
});

test("TKT-154 doneDefinition, verificationCommand, outOfScope: at most 500, no minimum", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId });
  for (const field of ["doneDefinition", "verificationCommand", "outOfScope"]) {
    assert.equal((await patch(b.dev.token, { ticketId: t.id, [field]: "x".repeat(501) })).status, 400, field);
    assert.equal((await patch(b.dev.token, { ticketId: t.id, [field]: "x" })).status, 200, field);
    assert.equal((await patch(b.dev.token, { ticketId: t.id, [field]: "x".repeat(500) })).status, 200, field);
  }
  const row = await ticketRow(t.id);
  assert.equal(row.done_definition.length, 500);
  assert.equal(row.verification_command.length, 500);
  assert.equal(row.out_of_scope.length, 500);
});

test("TKT-155 an empty string clears doneDefinition, verificationCommand, outOfScope", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId });
  const res = await patch(b.dev.token, {
    ticketId: t.id,
    doneDefinition: "",
    verificationCommand: "",
    outOfScope: "",
  });
  assert.equal(res.status, 200, res.text);
  const row = await ticketRow(t.id);
  assert.equal(row.done_definition, null);
  assert.equal(row.verification_command, null);
  assert.equal(row.out_of_scope, null);
});

test("TKT-156 branch is a string or null; null clears; malformed is 400", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId });
  assert.equal((await patch(b.dev.token, { ticketId: t.id, branch: "feat/x" })).status, 200);
  assert.equal((await ticketRow(t.id)).branch, "feat/x");
  assert.equal((await patch(b.dev.token, { ticketId: t.id, branch: "refs/heads/feat/x" })).status, 400);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, branch: "b".repeat(256) })).status, 400);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, branch: "b".repeat(255) })).status, 200);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, branch: null })).status, 200);
  assert.equal((await ticketRow(t.id)).branch, null);
});

test("TKT-157 priority, riskClass, noArtifact, noArtifactReason are accepted", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId });
  const res = await patch(b.dev.token, {
    ticketId: t.id,
    priority: "critical",
    riskClass: "shared-state",
    noArtifact: true,
    noArtifactReason: "Docs only",
  });
  assert.equal(res.status, 200, res.text);
  const row = await ticketRow(t.id);
  assert.deepEqual(row.tags, ["priority:critical"]);
  assert.equal(row.risk_class, "shared-state");
  assert.equal(row.no_artifact, true);
  assert.equal(row.no_artifact_reason, "Docs only");
  await patch(b.dev.token, { ticketId: t.id, priority: "normal" });
  assert.deepEqual((await ticketRow(t.id)).tags, []);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, priority: "urgent" })).status, 400);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, riskClass: "huge" })).status, 400);
  assert.equal((await patch(b.dev.token, { ticketId: t.id, noArtifactReason: "r".repeat(201) })).status, 400);
});

test("TKT-158 acceptSuggestions fills missing agent-first fields without overwriting", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId, riskClass: null });
  await patch(b.dev.token, { ticketId: t.id, doneDefinition: "" });
  const res = await patch(b.dev.token, { ticketId: t.id, acceptSuggestions: true });
  assert.equal(res.status, 200, res.text);
  const row = await ticketRow(t.id);
  assert.match(row.done_definition, /It works/);
  assert.equal(row.verification_command, "deno task test", "an existing value is kept");
  assert.equal(row.risk_class, "local");
});

test("TKT-101 TKT-160 an orchestrator may change any field of any ticket", async () => {
  const b = await board({ reviewMode: "light" });
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId, createdBy: b.other.agentId });
  const res = await patch(b.orchestrator.token, {
    ticketId: t.id,
    title: "Orchestrated",
    description: "By the orchestrator",
    priority: "high",
    status: "blocked",
    reviewerAgentId: b.evaluator.agentId,
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.status, "blocked");
  assert.equal(res.body.data.assigneeAgentId, b.dev.agentId);
});

test("TKT-102 an orchestrator cannot claim a ticket (403 with guidance)", async () => {
  const b = await board();
  const t = await ticket(b);
  for (const body of [{ action: "claim" }, { assignToSelf: true }]) {
    const res = await patch(b.orchestrator.token, { ticketId: t.id, ...body });
    assert.equal(res.status, 403, JSON.stringify(body));
    assert.equal(res.body.error.code, "FORBIDDEN");
    assert.equal(typeof res.body.error.details.guidance, "string");
    assert.equal(res.body.error.details.recovery.action, "MINT_SUBAGENT_SESSION");
  }
  assert.equal((await ticketRow(t.id)).assignee_agent_id, null);
});

test("TKT-161 any agent may claim an unassigned ticket with assignToSelf (and move it in the same call)", async () => {
  const b = await board();
  const t = await ticket(b);
  const res = await patch(b.evaluator.token, { ticketId: t.id, assignToSelf: true, status: "in_progress" });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.data.assigneeAgentId, b.evaluator.agentId);
  assert.equal(res.body.data.status, "in_progress");
  const u = await ticket(b);
  const only = await patch(b.other.token, { ticketId: u.id, assignToSelf: true });
  assert.equal(only.body.data.status, "backlog", "assignToSelf alone changes no status");
});

test("TKT-149 two agents claiming the same ticket concurrently: one wins, the other gets 409", async () => {
  const b = await board();
  const t = await ticket(b);
  const results = await Promise.all([
    patch(b.dev.token, { ticketId: t.id, assignToSelf: true }),
    patch(b.other.token, { ticketId: t.id, assignToSelf: true }),
  ]);
  assert.deepEqual(results.map((r) => r.status).sort(), [200, 409]);
});

test("TKT-162 the assignee may change their own ticket", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId, createdBy: b.other.agentId });
  const res = await patch(b.dev.token, { ticketId: t.id, title: "Mine", priority: "low", status: "claimed" });
  assert.equal(res.status, 200, res.text);
});

test("TKT-164 anyone else gets 403 FORBIDDEN", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  for (const body of [{ status: "blocked" }, { priority: "high" }, { action: "release" }, { branch: "x" }]) {
    const res = await patch(b.other.token, { ticketId: t.id, ...body });
    assert.equal(res.status, 403, JSON.stringify(body));
    assert.equal(res.body.error.code, "FORBIDDEN");
  }
  const same = await patch(b.other.token, { ticketId: t.id, status: "in_progress" });
  assert.equal(same.status, 403, "permission is checked before the ticket's state is revealed");
  const unassigned = await ticket(b);
  const move = await patch(b.other.token, { ticketId: unassigned.id, status: "claimed" });
  assert.equal(move.status, 403, "moving an unassigned ticket needs assignToSelf");
  assert.equal(move.body.error.details.recovery.payloadHint.assignToSelf, true);
});

test("TKT-165 title and description: assignee, creator or orchestrator only", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.other.agentId, createdBy: b.dev.agentId });
  const creator = await patch(b.dev.token, { ticketId: t.id, title: "By creator", description: "ok" });
  assert.equal(creator.status, 200, creator.text);
  const creatorOther = await patch(b.dev.token, { ticketId: t.id, priority: "high" });
  assert.equal(creatorOther.status, 403, "the creator edits only title and description");
  const stranger = await patch(b.evaluator.token, { ticketId: t.id, title: "No" });
  assert.equal(stranger.status, 403);
  assert.equal((await ticketRow(t.id)).title, "By creator");
});

test("TKT-166 a human-only ticket answers 403 with code VALIDATION_ERROR", async () => {
  const b = await board();
  const t = await ticket(b, { humanOnly: true });
  for (const token of [b.dev.token, b.orchestrator.token]) {
    const res = await patch(token, { ticketId: t.id, assignToSelf: true });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  }
  const res = await patch(b.orchestrator.token, { ticketId: t.id, status: "cancelled" });
  assert.equal(res.status, 403);
  assert.equal((await ticketRow(t.id)).status, "backlog");
});

test("TKT-100 PATCH /ticket needs write:ticket", async () => {
  const b = await board();
  const t = await ticket(b, { assignee: b.dev.agentId });
  const key = await call("POST", `/admin/projects/${b.projectId}/api-keys`, {
    token: "test-admin-token",
    body: { agentName: "reader", role: "generator", scopes: ["read:board"] },
  });
  const res = await patch(key.body.data.key, { ticketId: t.id, priority: "high" });
  assert.equal(res.status, 403);
  assert.ok(res.body.error.details.recovery);
});

test("TKT-097 every ticket move appends a ticket.moved event in the same transaction", async () => {
  const b = await board();
  const t = await ticket(b, { status: "in_progress", assignee: b.dev.agentId });
  await patch(b.dev.token, { ticketId: t.id, action: "block" });
  const { db } = await env();
  const events = await db.selectFrom("events").selectAll().where("project_id", "=", b.projectId)
    .where("kind", "=", "ticket.moved").execute();
  assert.equal(events.length, 1);
  assert.equal(events[0]!.data.from, "in_progress");
  assert.equal(events[0]!.data.to, "blocked");
});
