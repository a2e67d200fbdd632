import { env } from "../helpers/mod.ts";

/** Inserts a ticket row directly (the tickets API is built elsewhere); returns its id and key. */
export async function insertTicket(
  projectId: string,
  options: { status?: string; assignee?: string | null; subAgentName?: string | null; title?: string } = {},
): Promise<{ id: string; key: string; number: number }> {
  const { db, clock } = await env();
  const now = clock.now();
  const project = await db.selectFrom("projects").select(["ticket_prefix"]).where("id", "=", projectId)
    .executeTakeFirstOrThrow();
  const max = await db.selectFrom("tickets").select((eb) => eb.fn.max("number").as("n"))
    .where("project_id", "=", projectId).executeTakeFirst();
  const number = Number(max?.n ?? 0) + 1;
  const id = crypto.randomUUID();
  await db.insertInto("tickets").values({
    id,
    project_id: projectId,
    number,
    title: options.title ?? `Ticket ${number}`,
    description: null,
    type: null,
    status: options.status ?? "backlog",
    done_definition: null,
    verification_command: null,
    risk_class: null,
    out_of_scope: null,
    criteria_acknowledged_at: null,
    assignee_agent_id: options.assignee ?? null,
    sub_agent_name: options.subAgentName ?? null,
    reviewer_agent_id: null,
    review_handoff: null,
    parent_id: null,
    branch: null,
    sprint_id: null,
    story_points: null,
    no_artifact_reason: null,
    created_by_agent_id: null,
    idempotency_key: null,
    status_changed_at: now,
    created_at: now,
    updated_at: now,
  }).execute();
  return { id, key: `${project.ticket_prefix}-${number}`, number };
}

/** Registers a sub-agent of `parentAgentId` directly; act as it with the `X-Svc-SubAgent` header. */
export async function insertSubAgent(
  projectId: string,
  parentAgentId: string,
  name: string,
  role: "generator" | "evaluator" | "observer" = "generator",
): Promise<void> {
  const { db, clock } = await env();
  await db.insertInto("sub_agents").values({
    id: crypto.randomUUID(),
    project_id: projectId,
    parent_agent_id: parentAgentId,
    name,
    role,
    created_at: clock.now(),
  }).execute();
}
