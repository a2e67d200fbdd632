import type { Selectable } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import type { ThreadsTable } from "@/db/tables/work.ts";

type ThreadSummaryRow = Pick<
  Selectable<ThreadsTable>,
  | "id"
  | "agent_id"
  | "sub_agent_name"
  | "intent"
  | "expected_files"
  | "ticket_id"
  | "status"
  | "outcome"
  | "created_at"
  | "closed_at"
  | "last_message_at"
>;

/** A thread without its messages (spec: Thread), as GET /thread and context show it. */
export function toThreadSummary(row: ThreadSummaryRow, agentName: string | null) {
  return {
    id: row.id,
    agentId: row.agent_id,
    agentName,
    subAgentName: row.sub_agent_name,
    intent: row.intent,
    expectedFiles: row.expected_files,
    ticketId: row.ticket_id,
    status: row.status,
    outcome: row.outcome,
    createdAt: row.created_at.toISOString(),
    closedAt: row.closed_at?.toISOString() ?? null,
    lastMessageAt: row.last_message_at?.toISOString() ?? null,
  };
}

export type ThreadSummary = ReturnType<typeof toThreadSummary>;

/** The thread with its messages oldest first (spec: Thread and thread message), or null. */
export async function loadThread(db: DbOrTrx, projectId: string, threadId: string) {
  const row = await db.selectFrom("threads as t").leftJoin("agents as a", "a.id", "t.agent_id")
    .selectAll("t").select("a.name as agentName")
    .where("t.id", "=", threadId).where("t.project_id", "=", projectId).executeTakeFirst();
  if (!row) return null;
  const messages = await db.selectFrom("thread_messages as m")
    .leftJoin("agents as a", (join) =>
      join.on((eb) =>
        eb.and([
          eb("m.author_type", "=", "agent"),
          eb(eb.cast("a.id", "text"), "=", eb.ref("m.author_id")),
        ])
      ))
    .selectAll("m").select("a.name as agentName")
    .where("m.thread_id", "=", threadId)
    .orderBy("m.seq", "asc").execute();
  return {
    ...toThreadSummary(row, row.agentName ?? null),
    messages: messages.map((m) => ({
      id: m.id,
      authorType: m.author_type,
      authorId: m.author_id,
      // Agents show their current name; any other author falls back to its id (THREAD-005).
      authorName: m.author_type === "agent"
        ? (m.agentName ?? m.author_name ?? m.author_id)
        : (m.author_name ?? m.author_id),
      subAgentName: m.sub_agent_name,
      content: m.content,
      createdAt: m.created_at.toISOString(),
    })),
  };
}

/** A ledger-sized excerpt: the first `max` characters, with an ellipsis when cut. */
export function excerpt(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
