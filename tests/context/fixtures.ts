import { sql } from "kysely";
import { toJson } from "@/db/tables/types.ts";
import type { TicketSpec } from "../helpers/fixtures.ts";
import { env } from "../helpers/mod.ts";

/**
 * Direct inserts for context tests (the write routes belong to other areas) that the shared
 * `../helpers/fixtures.ts` does not provide.
 */
export async function now(): Promise<Date> {
  return (await env()).clock.now();
}

/** Agent-first ticket fields the context tests expect on their tickets; spread into `insertTicket`. */
export const CONTEXT_TICKET: TicketSpec = {
  type: "feature",
  expectedFiles: ["src/a.ts"],
  doneDefinition: "Done when the thing works end to end",
  verificationCommand: "deno task test",
  riskClass: "local",
  criteria: [{ title: "It works" }],
};

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

export async function setSettings(projectId: string, settings: Record<string, unknown>): Promise<void> {
  const { db } = await env();
  await db.updateTable("projects").set({ settings: sql`settings || ${toJson(settings)}::jsonb` })
    .where("id", "=", projectId).execute();
}

export function minutesAgo(base: Date, minutes: number): Date {
  return new Date(base.getTime() - minutes * 60_000);
}
