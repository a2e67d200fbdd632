import type { z } from "zod";
import { EVENTS_DEFAULT_LIMIT, type EventsQuery } from "@/contracts/events.ts";
import type { DbOrTrx } from "@/db/database.ts";
import type { ActorCtx, ServiceCtx } from "@/domain/core/context.ts";
import { fail, recovery } from "@/domain/core/errors.ts";
import { decodeEventCursor, encodeEventCursor } from "./cursor.ts";

/** Suggested pause between two polls that returned nothing new. */
export const EVENTS_POLL_INTERVAL_SECONDS = 10;

/** GET /events' query as the route has parsed it, with `kinds` split from its comma list. */
export type FeedInput = Omit<z.output<typeof EventsQuery>, "kinds"> & {
  /** Kinds to keep: exact (`ticket.moved`) or a prefix ending in a dot (`ticket.`). */
  kinds?: string[] | undefined;
};

export interface FeedEvent {
  seq: number;
  kind: string;
  entityType: string;
  entityId: string | null;
  agentId: string | null;
  data: Record<string, unknown>;
  createdAt: string;
}

/** The newest committed sequence of the project's feed (0 when it has none). */
export async function feedHead(db: DbOrTrx, projectId: string): Promise<number> {
  const row = await db.selectFrom("event_cursors").select("seq").where("project_id", "=", projectId)
    .executeTakeFirst();
  return row ? Number(row.seq) : 0;
}

/** A cursor at the current end of the feed: polling with it returns only what happens next. */
export async function headCursor(db: DbOrTrx, projectId: string): Promise<string> {
  return encodeEventCursor(projectId, await feedHead(db, projectId));
}

/**
 * GET /events: the project's events after `since`, oldest first. The head is read first and the page
 * is bounded by it: every event up to a visible head has committed (see recordEvent), so the page
 * and `nextCursor` never step over an event that is still being written.
 */
export async function listEvents(ctx: ActorCtx, input: FeedInput) {
  return await projectEvents(ctx, ctx.actor.projectId, input);
}

/** The feed of one project (GET /events for an agent; the dashboard's live stream for a member). */
export async function projectEvents(ctx: ServiceCtx, projectId: string, input: FeedInput) {
  const limit = input.limit ?? EVENTS_DEFAULT_LIMIT;
  const head = await feedHead(ctx.db, projectId);
  const after = await startingPoint(ctx, projectId, input.since, head);
  let query = ctx.db.selectFrom("events")
    .select(["seq", "kind", "entity_type", "entity_id", "agent_id", "data", "created_at"])
    .where("project_id", "=", projectId)
    .where("seq", ">", after)
    .where("seq", "<=", head);
  const kinds = input.kinds ?? [];
  if (kinds.length > 0) {
    const exact = kinds.filter((k) => !k.endsWith("."));
    const prefixes = kinds.filter((k) => k.endsWith("."));
    query = query.where((eb) =>
      eb.or([
        ...(exact.length > 0 ? [eb("kind", "in", exact)] : []),
        ...prefixes.map((p) => eb("kind", "like", `${p.replace(/[\\%_]/g, "\\$&")}%`)),
      ])
    );
  }
  const rows = await query.orderBy("seq", "asc").limit(limit + 1).execute();
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const events: FeedEvent[] = page.map((r) => ({
    seq: Number(r.seq),
    kind: r.kind,
    entityType: r.entity_type,
    entityId: r.entity_id,
    agentId: r.agent_id,
    data: r.data,
    createdAt: r.created_at.toISOString(),
  }));
  // A full page continues after its last event; otherwise everything up to the head was seen.
  const last = events.at(-1)?.seq;
  const position = hasMore && last !== undefined ? last : Math.max(head, after);
  return { events, nextCursor: encodeEventCursor(projectId, position), hasMore, head };
}

async function startingPoint(
  ctx: ServiceCtx,
  projectId: string,
  since: string | undefined,
  head: number,
): Promise<number> {
  if (since === undefined || since === "") return 0;
  const seq = decodeEventCursor(projectId, since);
  if (seq !== null) {
    if (seq > head) throw badCursor("The cursor is ahead of this project's feed");
    return seq;
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(since) && !Number.isNaN(Date.parse(since))) {
    const at = new Date(since);
    const row = await ctx.db.selectFrom("events").select((eb) => eb.fn.max("seq").as("seq"))
      .where("project_id", "=", projectId).where("created_at", "<=", at).executeTakeFirst();
    return row?.seq === null || row?.seq === undefined ? 0 : Math.min(Number(row.seq), head);
  }
  throw badCursor("`since` is neither a cursor of this project's feed nor an ISO 8601 time");
}

function badCursor(message: string) {
  return fail.validation(message, {
    fields: [{ path: "since", message, code: "invalid_cursor" }],
    recovery: recovery(
      "RESTART_PAGINATION",
      "GET /events",
      "Start again without `since` (or with the pollingHint.cursor of GET /context)",
    ),
  });
}
