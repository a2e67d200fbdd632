import { sql } from "kysely";
import type { Trx } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { liveHolders } from "@/domain/core/claim-holders.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { actorDisplayName } from "@/domain/core/actor.ts";
import { fileKey } from "@/shared/file-path.ts";
import { writeSystemEntry } from "@/domain/core/system-entry.ts";

/**
 * Serializes blocker threads of one file (in any letter case): take it before any event is recorded in the
 * transaction.
 */
export async function lockBlockerFile(trx: Trx, projectId: string, file: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`blocker:${projectId}:${fileKey(file)}`}))`.execute(trx);
}

/**
 * Opens a thread about the file blocking the caller, unless a thread is already open for that file (in any
 * letter case).
 * The caller holds `lockBlockerFile` for the file, which makes "check then open" safe under concurrency.
 * The file's current holder (if any, and not the caller) is notified. Returns the new thread's id.
 */
export async function openBlockerThread(
  trx: Trx,
  actor: Actor,
  input: { file: string; content: string; ticketId: string | null; sessionId: string | null; now: Date },
): Promise<string | null> {
  const { file, now } = input;
  const open = await trx.selectFrom("threads").select("id").where("project_id", "=", actor.projectId)
    .where(sql<boolean>`lower(blocked_by_file) = lower(${file})`).where("status", "=", "open").limit(1)
    .executeTakeFirst();
  if (open) return null;
  const id = crypto.randomUUID();
  const who = actorDisplayName(actor);
  const intent = `Blocked by ${file}: ${input.content}`.slice(0, 1000);
  await trx.insertInto("threads").values({
    id,
    project_id: actor.projectId,
    agent_id: actor.agentId,
    sub_agent_name: actor.subAgentName,
    intent,
    expected_files: toJson([file]),
    ticket_id: input.ticketId,
    outcome: null,
    blocked_by_file: file,
    created_at: now,
    closed_at: null,
    last_message_at: null,
  }).execute();
  const [holder] = await liveHolders(trx, actor.projectId, [file], now);
  if (holder && !(holder.agentId === actor.agentId && holder.subAgentName === actor.subAgentName)) {
    await trx.insertInto("notifications").values({
      id: crypto.randomUUID(),
      project_id: actor.projectId,
      recipient_agent_id: holder.agentId,
      recipient_user_id: null,
      kind: "blocker_thread",
      thread_id: id,
      message_id: null,
      content: `${who} is blocked by ${file}, which you hold: see the thread`,
      created_at: now,
    }).execute();
  }
  await writeSystemEntry(trx, {
    projectId: actor.projectId,
    type: "CONTEXT",
    content: `${who} opened a thread: blocked by ${file}`,
    agentId: actor.agentId,
    subAgentName: actor.subAgentName,
    sessionId: input.sessionId,
    ticketId: input.ticketId,
    threadId: id,
    fileRef: file,
    payload: { action: "thread.opened", reason: "blockedByFile" },
    now,
  });
  await recordEvent(trx, {
    projectId: actor.projectId,
    kind: "thread.opened",
    entityType: "thread",
    entityId: id,
    agentId: actor.agentId,
    data: { blockedByFile: file, ticketId: input.ticketId, via: "ledger.BLOCKED" },
    now,
  });
  return id;
}
