import type { Trx } from "@/db/database.ts";
import { excerpt } from "@/domain/core/thread-serialize.ts";

/**
 * Mention syntax (THREAD-024, THREAD-025): `@name` where name is letters, digits, `_`, `-`, `.` and `/`
 * (trailing `.` and `-` are punctuation, not part of the name), or `@"any name"` for names with
 * spaces. The `@` must start the text or follow a character that is not a letter, digit, `_`, `.` or `@`,
 * so e-mail addresses are not mentions. Names match case-insensitively. `@agent/sub` mentions the agent.
 */
const MENTION = /(^|[^A-Za-z0-9_.@])@(?:"([^"\n]{1,200})"|([A-Za-z0-9][A-Za-z0-9_.\/-]*))/g;

export function parseMentions(content: string): string[] {
  const names = new Set<string>();
  for (const match of content.matchAll(MENTION)) {
    const raw = (match[2] ?? match[3] ?? "").replace(/[.-]+$/, "").trim();
    if (!raw) continue;
    names.add(raw.toLowerCase());
    const slash = raw.indexOf("/");
    if (slash > 0) names.add(raw.slice(0, slash).toLowerCase());
  }
  return [...names];
}

export interface MentionInput {
  projectId: string;
  threadId: string;
  messageId: string;
  intent: string;
  authorAgentId: string;
  authorName: string;
  content: string;
  now: Date;
}

/**
 * Notification channel (THREAD-025): one row in `notifications` (kind `mention`) per mentioned agent of
 * the project and per mentioned project member (by user name), once per message, never for the author
 * itself. Agents see their unread notifications in GET /context `updates`.
 * Returns the recipients notified.
 */
export async function notifyMentions(trx: Trx, input: MentionInput) {
  const names = parseMentions(input.content);
  if (names.length === 0) return { agentIds: [] as string[], userIds: [] as string[] };
  const agents = await trx.selectFrom("agents").select("id")
    .where("project_id", "=", input.projectId)
    .where((eb) => eb(eb.fn("lower", ["name"]), "in", names))
    .where("id", "!=", input.authorAgentId)
    .execute();
  const users = await trx.selectFrom("memberships as m").innerJoin("users as u", "u.id", "m.user_id")
    .select("u.id")
    .where("m.project_id", "=", input.projectId)
    .where((eb) => eb(eb.fn("lower", ["u.name"]), "in", names))
    .execute();
  const text = `${input.authorName} mentioned you in thread "${excerpt(input.intent, 100)}": ${
    excerpt(input.content, 300)
  }`;
  const rows = [
    ...agents.map((a) => ({ recipient_agent_id: a.id, recipient_user_id: null })),
    ...users.map((u) => ({ recipient_agent_id: null, recipient_user_id: u.id })),
  ].map((r) => ({
    id: crypto.randomUUID(),
    project_id: input.projectId,
    ...r,
    kind: "mention",
    thread_id: input.threadId,
    message_id: input.messageId,
    content: text,
    created_at: input.now,
    read_at: null,
  }));
  if (rows.length > 0) await trx.insertInto("notifications").values(rows).execute();
  return { agentIds: agents.map((a) => a.id), userIds: users.map((u) => u.id) };
}
