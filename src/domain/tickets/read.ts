import { toLedgerEntry } from "@/domain/ledger/serialize.ts";
import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import type { ActorCtx } from "@/domain/shared/context.ts";
import { findTicketId, ticketNotFound } from "./refs.ts";
import { type TicketRow, toTicket } from "./serialize.ts";
import { loadProject } from "./project-info.ts";

export type TicketInclude = "comments" | "ledger" | "threads" | "activities" | "pullRequests" | "ciStatus";

export interface ReadTicketInput {
  id?: string | undefined;
  key?: string | undefined;
  include?: TicketInclude[] | undefined;
  limit: number;
  offset: number;
  paginate?: "v2" | undefined;
}

export interface TicketWithAssignee {
  row: TicketRow;
  assigneeName: string | null;
}

/** One ticket of the project with its assignee's name, or null. */
export async function ticketWithAssignee(
  db: DbOrTrx,
  projectId: string,
  id: string,
): Promise<TicketWithAssignee | null> {
  const found = await db.selectFrom("tickets as t").leftJoin("agents as a", "a.id", "t.assignee_agent_id")
    .selectAll("t").select("a.name as assignee_name")
    .where("t.id", "=", id).where("t.project_id", "=", projectId).executeTakeFirst();
  if (!found) return null;
  const { assignee_name, ...row } = found;
  return { row, assigneeName: assignee_name };
}

type Page<T> = T[] | {
  data: T[];
  pagination: { total: number; limit: number; offset: number; hasMore: boolean };
};

async function page<T>(
  input: ReadTicketInput,
  fetch: (limit: number, offset: number) => Promise<T[]>,
  count: () => Promise<number>,
): Promise<Page<T>> {
  const data = await fetch(input.limit, input.offset);
  if (input.paginate !== "v2") return data;
  const total = await count();
  return {
    data,
    pagination: {
      total,
      limit: input.limit,
      offset: input.offset,
      hasMore: input.offset + data.length < total,
    },
  };
}

/**
 * GET /ticket: the ticket by `key` (wins) or `id`, with the lists named in `include`, newest first, each
 * capped by `limit` from `offset`. With `paginate=v2` each list is `{ data, pagination }`.
 */
export async function readTicket(ctx: ActorCtx, input: ReadTicketInput) {
  const { db, actor } = ctx;
  const ref = input.key ?? input.id ?? "";
  const id = await findTicketId(db, actor.projectId, ref);
  const found = id ? await ticketWithAssignee(db, actor.projectId, id) : null;
  if (!found) throw ticketNotFound(ref);
  const project = await loadProject(db, actor.projectId);
  const ticketId = found.row.id;
  const include = new Set(input.include ?? []);
  const out: Record<string, unknown> = { ...toTicket(found.row, project.prefix, found.assigneeName) };

  if (include.has("comments")) {
    out.comments = await page(input, async (limit, offset) => {
      const rows = await db.selectFrom("ticket_comments").selectAll().where("ticket_id", "=", ticketId)
        .orderBy("created_at", "desc").orderBy("id").limit(limit).offset(offset).execute();
      return rows.map((r) => ({
        id: r.id,
        authorAgentId: r.author_agent_id,
        authorName: r.author_name ?? r.author_agent_id,
        content: r.content,
        createdAt: r.created_at.toISOString(),
      }));
    }, () => countWhere(db, "ticket_comments", ticketId));
  }
  if (include.has("ledger")) {
    out.ledger = await page(input, async (limit, offset) => {
      const rows = await db.selectFrom("ledger_entries as l").leftJoin("agents as a", "a.id", "l.agent_id")
        .selectAll("l").select("a.name as agent_name")
        .where("l.project_id", "=", actor.projectId).where("l.ticket_id", "=", ticketId).where(
          "l.audit",
          "=",
          false,
        )
        .orderBy("l.seq", "desc").limit(limit).offset(offset).execute();
      return rows.map(toLedgerEntry);
    }, async () => {
      const r = await db.selectFrom("ledger_entries").select(sql<number>`count(*)::int`.as("n"))
        .where("project_id", "=", actor.projectId).where("ticket_id", "=", ticketId).where(
          "audit",
          "=",
          false,
        )
        .executeTakeFirstOrThrow();
      return r.n;
    });
  }
  if (include.has("threads")) {
    out.threads = await page(input, async (limit, offset) => {
      const rows = await db.selectFrom("threads as th").leftJoin("agents as a", "a.id", "th.agent_id")
        .selectAll("th").select("a.name as agent_name")
        .where("th.project_id", "=", actor.projectId).where("th.ticket_id", "=", ticketId)
        .orderBy("th.created_at", "desc").limit(limit).offset(offset).execute();
      return rows.map((r) => ({
        id: r.id,
        agentId: r.agent_id,
        agentName: r.agent_name,
        subAgentName: r.sub_agent_name,
        intent: r.intent,
        expectedFiles: r.expected_files,
        ticketId: r.ticket_id,
        status: r.status,
        outcome: r.outcome,
        createdAt: r.created_at.toISOString(),
        closedAt: r.closed_at?.toISOString() ?? null,
        lastMessageAt: r.last_message_at?.toISOString() ?? null,
      }));
    }, async () => {
      const r = await db.selectFrom("threads").select(sql<number>`count(*)::int`.as("n"))
        .where("project_id", "=", actor.projectId).where("ticket_id", "=", ticketId)
        .executeTakeFirstOrThrow();
      return r.n;
    });
  }
  if (include.has("activities")) {
    out.activities = await page(input, async (limit, offset) => {
      const rows = await db.selectFrom("session_activities as sa").innerJoin(
        "sessions as s",
        "s.id",
        "sa.session_id",
      )
        .selectAll("sa").select(["s.agent_id", "s.sub_agent_name"])
        .where("s.project_id", "=", actor.projectId).where("s.ticket_id", "=", ticketId)
        .orderBy("sa.created_at", "desc").orderBy("sa.id").limit(limit).offset(offset).execute();
      return rows.map((r) => ({
        id: r.id,
        sessionId: r.session_id,
        agentId: r.agent_id,
        subAgentName: r.sub_agent_name,
        type: r.type,
        body: r.body,
        action: r.action,
        parameter: r.parameter,
        result: r.result,
        ephemeral: r.ephemeral,
        createdAt: r.created_at.toISOString(),
      }));
    }, async () => {
      const r = await db.selectFrom("session_activities as sa").innerJoin(
        "sessions as s",
        "s.id",
        "sa.session_id",
      )
        .select(sql<number>`count(*)::int`.as("n"))
        .where("s.project_id", "=", actor.projectId).where("s.ticket_id", "=", ticketId)
        .executeTakeFirstOrThrow();
      return r.n;
    });
  }
  if (include.has("pullRequests")) {
    out.pullRequests = await page(input, async (limit, offset) => {
      const rows = await db.selectFrom("ticket_artifacts").selectAll().where("ticket_id", "=", ticketId)
        .where("type", "=", "pull_request").orderBy("created_at", "desc").orderBy("id").limit(limit).offset(
          offset,
        )
        .execute();
      return rows.map((r) => ({
        id: r.id,
        url: r.url,
        ref: r.ref,
        title: r.title,
        status: r.status,
        metadata: r.metadata,
        agentId: r.agent_id,
        createdAt: r.created_at.toISOString(),
        updatedAt: r.updated_at.toISOString(),
      }));
    }, async () => {
      const r = await db.selectFrom("ticket_artifacts").select(sql<number>`count(*)::int`.as("n"))
        .where("ticket_id", "=", ticketId).where("type", "=", "pull_request").executeTakeFirstOrThrow();
      return r.n;
    });
  }
  if (include.has("ciStatus")) out.ciStatus = await ciStatus(db, ticketId);
  return out;
}

async function countWhere(db: DbOrTrx, table: "ticket_comments", ticketId: string): Promise<number> {
  const r = await db.selectFrom(table).select(sql<number>`count(*)::int`.as("n")).where(
    "ticket_id",
    "=",
    ticketId,
  )
    .executeTakeFirstOrThrow();
  return r.n;
}

const CI_STATES: Record<string, "pending" | "passing" | "failing"> = {
  pending: "pending",
  running: "pending",
  queued: "pending",
  success: "passing",
  passed: "passing",
  passing: "passing",
  green: "passing",
  failure: "failing",
  failed: "failing",
  failing: "failing",
  error: "failing",
  red: "failing",
};

/**
 * The ticket's CI state, as reported on its artifacts: the newest artifact whose `metadata.ciStatus`
 * (or `metadata.ci.status`) is a known word decides; `unknown` when none reports one. The service runs
 * no CI itself.
 */
async function ciStatus(db: DbOrTrx, ticketId: string) {
  const rows = await db.selectFrom("ticket_artifacts").select(["url", "type", "metadata", "updated_at"])
    .where("ticket_id", "=", ticketId).orderBy("updated_at", "desc").limit(50).execute();
  for (const r of rows) {
    const meta = r.metadata ?? {};
    const ci = typeof meta.ci === "object" && meta.ci !== null ? meta.ci as Record<string, unknown> : {};
    const raw = typeof meta.ciStatus === "string"
      ? meta.ciStatus
      : typeof ci.status === "string"
      ? ci.status
      : null;
    const state = raw ? CI_STATES[raw.toLowerCase()] : undefined;
    if (state) {
      return {
        state,
        source: r.type,
        url: typeof ci.url === "string" ? ci.url : r.url,
        updatedAt: r.updated_at.toISOString(),
      };
    }
  }
  return { state: "unknown" as const, source: null, url: null, updatedAt: null };
}
