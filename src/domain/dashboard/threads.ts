import type { ServiceCtx } from "@/domain/core/context.ts";
import { identityName } from "@/domain/core/actor.ts";
import type { DashboardMember } from "./access.ts";

export const THREADS_PAGE_SIZE = 50;
export const THREAD_MESSAGES_LIMIT = 200;

export interface ThreadSummary {
  id: string;
  intent: string;
  status: string;
  author: string | null;
  ticketKey: string | null;
  createdAt: Date;
  lastMessageAt: Date | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Threads, open first, most recent activity first; offset paging. One query. */
export async function threadList(
  ctx: ServiceCtx,
  member: DashboardMember,
  page: number,
): Promise<{ threads: ThreadSummary[]; hasMore: boolean }> {
  const { project } = member;
  const rows = await ctx.db.selectFrom("threads as th")
    .leftJoin("agents as a", "a.id", "th.agent_id")
    .leftJoin("tickets as t", "t.id", "th.ticket_id")
    .select([
      "th.id",
      "th.intent",
      "th.status",
      "th.sub_agent_name",
      "th.created_at",
      "th.last_message_at",
      "a.name as agent_name",
      "t.number",
    ])
    .where("th.project_id", "=", project.id)
    .orderBy("th.status", "desc").orderBy("th.last_message_at", (ob) => ob.desc().nullsLast())
    .orderBy("th.created_at", "desc")
    .limit(THREADS_PAGE_SIZE + 1).offset(Math.max(0, page) * THREADS_PAGE_SIZE).execute();
  return {
    hasMore: rows.length > THREADS_PAGE_SIZE,
    threads: rows.slice(0, THREADS_PAGE_SIZE).map((r) => ({
      id: r.id,
      intent: r.intent,
      status: r.status,
      author: identityName(r.agent_name, r.sub_agent_name),
      ticketKey: r.number === null ? null : `${project.prefix}-${r.number}`,
      createdAt: r.created_at,
      lastMessageAt: r.last_message_at,
    })),
  };
}

/** One thread with its messages (oldest first, up to 200), or null. Two queries. */
export async function threadWithMessages(ctx: ServiceCtx, member: DashboardMember, threadId: string) {
  if (!UUID.test(threadId)) return null;
  const thread = await ctx.db.selectFrom("threads").select([
    "id",
    "intent",
    "status",
    "outcome",
    "created_at",
  ])
    .where("project_id", "=", member.project.id).where("id", "=", threadId.toLowerCase()).executeTakeFirst();
  if (!thread) return null;
  const messages = await ctx.db.selectFrom("thread_messages")
    .select(["id", "author_name", "sub_agent_name", "content", "created_at"])
    .where("thread_id", "=", thread.id).orderBy("seq", "asc").limit(THREAD_MESSAGES_LIMIT).execute();
  return {
    id: thread.id,
    intent: thread.intent,
    status: thread.status,
    outcome: thread.outcome,
    createdAt: thread.created_at,
    messages: messages.map((m) => ({
      id: m.id,
      author: identityName(m.author_name, m.sub_agent_name),
      content: m.content,
      createdAt: m.created_at,
    })),
  };
}
