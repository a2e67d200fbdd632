// deno-lint-ignore-file no-explicit-any
import { sql } from "kysely";
import { toJson } from "@/db/tables/types.ts";
import { type AgentFixture, call, env, newProject, pairAgent } from "../helpers/mod.ts";

export interface Board {
  projectId: string;
  prefix: string;
  /** Generator that owns the tickets made with `ticket()` unless told otherwise. */
  dev: AgentFixture;
  other: AgentFixture;
  evaluator: AgentFixture;
  orchestrator: AgentFixture;
}

/** A project with a generator, a second generator, an evaluator and an orchestrator. */
export async function board(
  options: { reviewMode?: string; settings?: Record<string, unknown>; plan?: string } = {},
): Promise<Board> {
  const { projectId, prefix } = await newProject({ plan: options.plan ?? "enterprise", ...options });
  const [dev, other, evaluator, orchestrator] = await Promise.all([
    pairAgent(projectId),
    pairAgent(projectId),
    pairAgent(projectId, { role: "evaluator" }),
    pairAgent(projectId, { role: "orchestrator" }),
  ]);
  return { projectId, prefix, dev: dev!, other: other!, evaluator: evaluator!, orchestrator: orchestrator! };
}

export interface TicketOptions {
  status?: string;
  /** Agent id, or null for unassigned. Default: unassigned. */
  assignee?: string | null;
  reviewer?: string | null;
  createdBy?: string | null;
  criteria?: Record<string, unknown>[];
  acknowledged?: boolean;
  humanOnly?: boolean;
  riskClass?: "local" | "shared-state" | "irreversible" | null;
  reviewHandoff?: Record<string, unknown> | null;
  tested?: boolean;
}

/** Inserts a ticket row directly (the create endpoint is another area's) and returns its id and ref. */
export async function ticket(
  b: Board,
  o: TicketOptions = {},
): Promise<{ id: string; ref: string; number: number }> {
  const { db } = await env();
  const seq = await db.updateTable("projects").set({ ticket_seq: sql`ticket_seq + 1` })
    .where("id", "=", b.projectId).returning("ticket_seq").executeTakeFirstOrThrow();
  const id = crypto.randomUUID();
  const now = new Date();
  const number = Number(seq.ticket_seq);
  await db.insertInto("tickets").values({
    id,
    project_id: b.projectId,
    number,
    title: `Ticket ${number}`,
    description: "Original description",
    type: "feature",
    status: o.status ?? "backlog",
    expected_files: toJson(["src/a.ts"]),
    done_definition: "The feature works and its tests pass",
    verification_command: "deno task test",
    risk_class: o.riskClass === undefined ? "local" : o.riskClass,
    acceptance_criteria: toJson(o.criteria ?? [{ title: "It works" }]),
    criteria_acknowledged_at: o.acknowledged === false ? null : now,
    assignee_agent_id: o.assignee ?? null,
    reviewer_agent_id: o.reviewer ?? null,
    review_handoff: o.reviewHandoff ? toJson(o.reviewHandoff) : null,
    human_only: o.humanOnly ?? false,
    created_by_agent_id: o.createdBy === undefined ? b.dev.agentId : o.createdBy,
    idempotency_key: null,
    parent_id: null,
    branch: null,
    sprint_id: null,
    story_points: null,
    no_artifact_reason: null,
    sub_agent_name: null,
    out_of_scope: null,
    status_changed_at: now,
    created_at: now,
    updated_at: now,
  } as any).execute();
  if (o.tested) await logTested(b, id);
  return { id, ref: `${b.prefix}-${number}`, number };
}

/** A ledger entry on the ticket, inserted directly (the ledger endpoint is another area's). */
export async function logTested(b: Board, ticketId: string, type = "TESTED"): Promise<void> {
  const { db } = await env();
  await db.insertInto("ledger_entries").values({
    id: crypto.randomUUID(),
    project_id: b.projectId,
    type: type as any,
    content: "deno task test: 12 passed",
    agent_id: b.dev.agentId,
    ticket_id: ticketId,
    created_at: new Date(),
  }).execute();
}

export async function ticketRow(id: string): Promise<any> {
  const { db } = await env();
  return await db.selectFrom("tickets").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

export const HANDOFF = { summary: "Implemented the feature", changedFiles: ["src/a.ts"], branch: "feat/a" };

export function patch(token: string, body: Record<string, unknown>) {
  return call("PATCH", "/ticket", { token, body });
}

/** Holds a live claim on `files` for the agent, linked to the ticket (inserted directly). */
export async function holdClaim(b: Board, agentId: string, ticketId: string | null, files: string[]) {
  const { db } = await env();
  const id = crypto.randomUUID();
  const now = new Date();
  await db.insertInto("claims").values({
    id,
    project_id: b.projectId,
    agent_id: agentId,
    sub_agent_name: null,
    session_id: null,
    ticket_id: ticketId,
    commit_sha: null,
    claimed_at: now,
    expires_at: new Date(now.getTime() + 30 * 60_000),
  }).execute();
  await db.insertInto("claim_files").values(
    files.map((file) => ({ claim_id: id, project_id: b.projectId, file })),
  )
    .execute();
  return id;
}

export async function liveFiles(b: Board, agentId?: string): Promise<string[]> {
  const { db } = await env();
  let q = db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id").select("f.file")
    .where("f.project_id", "=", b.projectId).where("f.released_at", "is", null);
  if (agentId) q = q.where("c.agent_id", "=", agentId);
  return (await q.orderBy("f.file").execute()).map((r) => r.file);
}
