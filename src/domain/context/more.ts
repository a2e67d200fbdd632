import type { z } from "zod";
import type { ContextMoreQuery } from "@/contracts/context.ts";
import { LEDGER_TYPES, type LedgerType } from "@/db/tables/work.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { byteChunk, serializedBriefAt } from "./brief.ts";
import { decodeCursor, encodeCursor, intOf, isUuid, timeKeyset } from "./cursor.ts";
import { DEFAULT_LEDGER_FILTER, type LedgerFilter, ledgerPage } from "./ledger.ts";
import { reviewPage } from "./reviews.ts";
import { threadPage, type ThreadStatusFilter } from "./threads.ts";

export const MORE_SECTIONS = ["ledger", "threads", "brief", "reviews"] as const;
export type MoreSection = typeof MORE_SECTIONS[number];
export const MORE_DEFAULT_LIMIT = 50;

/** GET /context/more's query, as the route has parsed it. */
export type MoreInput = z.output<typeof ContextMoreQuery>;

/** GET /context/more: the next rows of one context section behind an opaque cursor. */
export async function contextMore(ctx: ActorCtx, input: MoreInput) {
  const limit = input.limit ?? MORE_DEFAULT_LIMIT;
  switch (input.section) {
    case "ledger":
      return await moreLedger(ctx, input.cursor, limit);
    case "threads":
      return await moreThreads(ctx, input.cursor, limit);
    case "reviews":
      return await moreReviews(ctx, input.cursor, limit);
    case "brief":
      return await moreBrief(ctx, input.cursor, limit);
  }
}

/** A ledger cursor: the filters context used and where to continue. */
export function ledgerCursor(filter: LedgerFilter, beforeSeq: number): string {
  return encodeCursor("ledger", { f: filter, b: beforeSeq });
}

async function moreLedger(ctx: ActorCtx, cursor: string | undefined, limit: number) {
  const state = decodeCursor("ledger", cursor);
  const filter = state ? sanitizeFilter(state.f) : null;
  const before = filter ? intOf(state, "b") : null;
  const effective = filter && before !== null ? filter : DEFAULT_LEDGER_FILTER;
  const page = await ledgerPage(ctx.db, ctx.actor.projectId, effective, limit, filter ? before : null);
  return {
    section: "ledger" as const,
    rows: page.entries,
    hasMore: page.nextSeq !== null,
    nextCursor: page.nextSeq !== null ? ledgerCursor(effective, page.nextSeq) : null,
  };
}

function sanitizeFilter(value: unknown): LedgerFilter | null {
  if (typeof value !== "object" || value === null) return null;
  const f = value as Record<string, unknown>;
  if (f.source !== "agent" && f.source !== "system" && f.source !== "all") return null;
  if (typeof f.includeAudit !== "boolean") return null;
  const out: LedgerFilter = { source: f.source, includeAudit: f.includeAudit };
  if (f.types !== undefined) {
    if (!Array.isArray(f.types) || !f.types.every((t) => LEDGER_TYPES.includes(t))) return null;
    out.types = f.types as LedgerType[];
  }
  if (f.sessionId !== undefined) {
    if (!isUuid(f.sessionId)) return null;
    out.sessionId = f.sessionId;
  }
  for (const key of ["fileRef", "subAgent"] as const) {
    const v = f[key];
    if (v === undefined) continue;
    if (typeof v !== "string" || v.length > 500) return null;
    out[key] = v;
  }
  if (f.since !== undefined) {
    if (typeof f.since !== "string" || Number.isNaN(Date.parse(f.since))) return null;
    out.since = f.since;
  }
  return out;
}

async function moreThreads(ctx: ActorCtx, cursor: string | undefined, limit: number) {
  const state = decodeCursor("threads", cursor);
  const st = state?.st;
  const status: ThreadStatusFilter = st === "open" || st === "closed" ? st : "all";
  const before = timeKeyset(state);
  const page = await threadPage(ctx.db, ctx.actor.projectId, status, limit, before);
  return {
    section: "threads" as const,
    // The narrower row of /context/more (CTX-048): the summary without who opened it and its files.
    rows: page.rows.map(({ agentName: _agentName, expectedFiles: _expectedFiles, ...row }) => row),
    hasMore: page.next !== null,
    nextCursor: page.next ? encodeCursor("threads", { st: status, k: [page.next.at, page.next.id] }) : null,
  };
}

/** The cursor context hands out: newest first, down to (not including) the oldest-first rows it showed. */
export function pendingReviewsCursor(floor: { at: string; id: string }): string {
  return encodeCursor("reviews", { fl: [floor.at, floor.id] });
}

async function moreReviews(ctx: ActorCtx, cursor: string | undefined, limit: number) {
  const state = decodeCursor("reviews", cursor);
  const after = timeKeyset(state, "k");
  const floor = timeKeyset(state, "fl");
  const page = await reviewPage(ctx.db, {
    projectId: ctx.actor.projectId,
    agentId: ctx.actor.agentId,
    order: "newest",
    limit,
    after,
    floor,
  });
  return {
    section: "reviews" as const,
    rows: page.rows,
    hasMore: page.next !== null,
    nextCursor: page.next
      ? encodeCursor("reviews", {
        k: [page.next.at, page.next.id],
        ...(floor ? { fl: [floor.at, floor.id] } : {}),
      })
      : null,
  };
}

async function moreBrief(ctx: ActorCtx, cursor: string | undefined, limitKb: number) {
  const state = decodeCursor("brief", cursor);
  const pinned = intOf(state, "v");
  const brief = await serializedBriefAt(ctx.db, ctx.actor.projectId, pinned);
  let offset = pinned === brief.version ? intOf(state, "o") ?? 0 : 0;
  let piece = byteChunk(brief.text, offset, limitKb * 1024);
  if (!piece) {
    offset = 0;
    piece = byteChunk(brief.text, 0, limitKb * 1024)!;
  }
  const hasMore = piece.end < piece.total;
  const nextCursor = hasMore ? encodeCursor("brief", { v: brief.version, o: piece.end }) : null;
  return {
    section: "brief" as const,
    rows: [{
      version: brief.version,
      chunk: piece.chunk,
      offset,
      totalBytes: piece.total,
      hasMore,
      nextCursor,
    }],
    hasMore,
    nextCursor,
  };
}
