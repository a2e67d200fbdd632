import { sql } from "kysely";
import { toJson } from "@/db/tables/types.ts";
import { env } from "../helpers/mod.ts";

/** Direct inserts for context tests (the write routes belong to other areas). */
export async function now(): Promise<Date> {
  return (await env()).clock.now();
}

let ticketNumber = 1000;

export async function insertTicket(
  projectId: string,
  fields: {
    status?: string;
    assignee?: string | null;
    reviewer?: string | null;
    expectedFiles?: string[];
    statusChangedAt?: Date;
    title?: string;
    criteria?: Array<Record<string, unknown>>;
    branch?: string | null;
    type?: string | null;
  } = {},
): Promise<{ id: string; number: number }> {
  const { db } = await env();
  const t = await now();
  const id = crypto.randomUUID();
  const number = ++ticketNumber;
  await db.insertInto("tickets").values({
    id,
    project_id: projectId,
    number,
    title: fields.title ?? `Ticket ${number}`,
    description: null,
    type: fields.type ?? "feature",
    status: fields.status ?? "backlog",
    expected_files: toJson(fields.expectedFiles ?? ["src/a.ts"]),
    done_definition: "Done when the thing works end to end",
    verification_command: "deno task test",
    risk_class: "local",
    out_of_scope: null,
    acceptance_criteria: toJson(fields.criteria ?? [{ title: "It works" }]),
    criteria_acknowledged_at: null,
    assignee_agent_id: fields.assignee ?? null,
    sub_agent_name: null,
    reviewer_agent_id: fields.reviewer ?? null,
    review_handoff: null,
    parent_id: null,
    branch: fields.branch ?? null,
    sprint_id: null,
    story_points: null,
    no_artifact_reason: null,
    created_by_agent_id: null,
    idempotency_key: null,
    status_changed_at: fields.statusChangedAt ?? t,
    created_at: t,
    updated_at: t,
  }).execute();
  return { id, number };
}

export async function insertLedger(
  projectId: string,
  fields: {
    type?: string;
    content?: string;
    source?: "agent" | "system";
    audit?: boolean;
    agentId?: string | null;
    sessionId?: string | null;
    ticketId?: string | null;
    fileRef?: string | null;
    subAgentName?: string | null;
    envHealth?: Record<string, unknown> | null;
    createdAt?: Date;
  } = {},
): Promise<string> {
  const { db } = await env();
  const id = crypto.randomUUID();
  await db.insertInto("ledger_entries").values({
    id,
    project_id: projectId,
    type: (fields.type ?? "PROGRESS") as "PROGRESS",
    content: fields.content ?? "did a thing",
    source: fields.source ?? "agent",
    audit: fields.audit ?? false,
    agent_id: fields.agentId ?? null,
    sub_agent_name: fields.subAgentName ?? null,
    session_id: fields.sessionId ?? null,
    ticket_id: fields.ticketId ?? null,
    thread_id: null,
    file_ref: fields.fileRef ?? null,
    line_ref: null,
    payload: null,
    severity: null,
    tokens_used: null,
    activity: null,
    env_health: fields.envHealth ? toJson(fields.envHealth) : null,
    created_at: fields.createdAt ?? await now(),
  }).execute();
  return id;
}

export async function insertThread(
  projectId: string,
  fields: { status?: "open" | "closed"; agentId?: string | null; createdAt?: Date; intent?: string } = {},
): Promise<string> {
  const { db } = await env();
  const id = crypto.randomUUID();
  const t = fields.createdAt ?? await now();
  await db.insertInto("threads").values({
    id,
    project_id: projectId,
    agent_id: fields.agentId ?? null,
    sub_agent_name: null,
    intent: fields.intent ?? "Coordinate on something",
    expected_files: toJson([]),
    ticket_id: null,
    status: fields.status ?? "open",
    outcome: fields.status === "closed" ? "settled" : null,
    blocked_by_file: null,
    created_at: t,
    closed_at: fields.status === "closed" ? t : null,
    last_message_at: null,
  }).execute();
  return id;
}

export async function insertClaim(
  projectId: string,
  agentId: string,
  files: string[],
  fields: { ticketId?: string | null; claimedAt?: Date; expiresAt?: Date } = {},
): Promise<string> {
  const { db } = await env();
  const id = crypto.randomUUID();
  const t = await now();
  await db.insertInto("claims").values({
    id,
    project_id: projectId,
    agent_id: agentId,
    sub_agent_name: null,
    session_id: null,
    ticket_id: fields.ticketId ?? null,
    commit_sha: null,
    claimed_at: fields.claimedAt ?? t,
    expires_at: fields.expiresAt ?? new Date(t.getTime() + 30 * 60_000),
    released_at: null,
  }).execute();
  for (const file of files) {
    await db.insertInto("claim_files").values({
      claim_id: id,
      project_id: projectId,
      file,
      released_at: null,
    })
      .execute();
  }
  return id;
}

export async function insertNotification(projectId: string, agentId: string, content: string, at?: Date) {
  const { db } = await env();
  await db.insertInto("notifications").values({
    id: crypto.randomUUID(),
    project_id: projectId,
    recipient_agent_id: agentId,
    recipient_user_id: null,
    kind: "mention",
    thread_id: null,
    message_id: null,
    content,
    created_at: at ?? await now(),
    read_at: null,
  }).execute();
}

export async function setBrief(
  projectId: string,
  brief: Record<string, unknown>,
  version = 1,
): Promise<void> {
  const { db } = await env();
  await db.updateTable("projects").set({
    brief: toJson(brief),
    brief_version: version,
    brief_updated_at: await now(),
  })
    .where("id", "=", projectId).execute();
  await db.insertInto("brief_versions").values({
    project_id: projectId,
    version,
    content: toJson(brief),
    agent_id: null,
    created_at: await now(),
  }).onConflict((oc) => oc.columns(["project_id", "version"]).doNothing()).execute();
}

export async function setSettings(projectId: string, settings: Record<string, unknown>): Promise<void> {
  const { db } = await env();
  await db.updateTable("projects").set({ settings: sql`settings || ${toJson(settings)}::jsonb` })
    .where("id", "=", projectId).execute();
}

export function minutesAgo(base: Date, minutes: number): Date {
  return new Date(base.getTime() - minutes * 60_000);
}
