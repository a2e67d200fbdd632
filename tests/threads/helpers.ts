import { env } from "../helpers/mod.ts";

/** A ticket row written straight to the table (POST /ticket belongs to another area). */
export async function insertTicket(
  projectId: string,
  fields: { status?: string; sprintId?: string | null; assigneeAgentId?: string | null; title?: string } = {},
) {
  const { db, clock } = await env();
  const now = clock.now();
  const project = await db.updateTable("projects").set((eb) => ({ ticket_seq: eb("ticket_seq", "+", 1) }))
    .where("id", "=", projectId).returning(["ticket_seq", "ticket_prefix"]).executeTakeFirstOrThrow();
  const id = crypto.randomUUID();
  await db.insertInto("tickets").values({
    id,
    project_id: projectId,
    number: project.ticket_seq,
    title: fields.title ?? `Ticket ${project.ticket_seq}`,
    description: null,
    type: "feature",
    status: fields.status ?? "backlog",
    done_definition: null,
    verification_command: null,
    risk_class: "local",
    out_of_scope: null,
    criteria_acknowledged_at: null,
    assignee_agent_id: fields.assigneeAgentId ?? null,
    sub_agent_name: null,
    reviewer_agent_id: null,
    review_handoff: null,
    parent_id: null,
    branch: null,
    sprint_id: fields.sprintId ?? null,
    story_points: null,
    no_artifact_reason: null,
    created_by_agent_id: null,
    idempotency_key: null,
    status_changed_at: now,
    created_at: now,
    updated_at: now,
  }).execute();
  return { id, number: project.ticket_seq, ref: `${project.ticket_prefix}-${project.ticket_seq}` };
}
