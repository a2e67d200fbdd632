import type { z } from "zod";
import { sql } from "kysely";
import type { LedgerEntryInput, LedgerWriteData } from "@/contracts/ledger.ts";
import type { Trx } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";
import { type EventInput, recordEvent, writeWithEvent } from "@/domain/core/record-event.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { assertBackpressure, backpressureError, backpressureHit } from "./backpressure.ts";
import { lockEntryTicket } from "@/domain/core/system-entry.ts";
import { insertWhen } from "@/db/insert-when.ts";
import { blockTicket } from "./block-ticket.ts";
import { lockBlockerFile, openBlockerThread } from "./blocker-thread.ts";
import { takeAgentOffline } from "./suspend.ts";
import { type PreparedEntry, prepareEntry } from "./validate.ts";
import { assertFencesCurrent } from "@/domain/core/fences.ts";

/**
 * `single`: POST /ledger, with its side effects (BLOCKED moves the ticket and opens a blocker thread,
 * a critical ALERT takes the agent offline). `batch`: the entry alone.
 */
export type AppendMode = "single" | "batch";

/** The nextAction of POST /ledger's answer. */
export type NextAction = AppendResult["nextAction"];

/** What POST /ledger answers (its `data`). */
export type AppendResult = z.output<typeof LedgerWriteData>;

/**
 * Writes one ledger entry from the caller (`source: agent`): with its side effects (BLOCKED, a critical
 * alert) in one transaction, otherwise in one statement.
 */
export async function appendEntry(
  ctx: ActorCtx,
  input: LedgerEntryInput,
  mode: AppendMode,
): Promise<AppendResult> {
  const { actor } = ctx;
  const now = ctx.clock.now();
  const entry = await prepareEntry(ctx.db, actor, input);
  if (input.fence !== undefined && input.fileRef !== undefined) {
    await assertFencesCurrent(ctx.db, actor, [{ file: input.fileRef, fence: input.fence }], now);
  }
  const critical = entry.type === "ALERT" && input.severity === "critical";
  const effects = mode === "single" && (entry.type === "BLOCKED" || critical);
  // A critical alert spends two budgets, before anything is written; other entries count in their write.
  if (critical) {
    await assertBackpressure(ctx.db, actor, "ledger", now);
    await assertBackpressure(ctx.db, actor, "criticalAlert", now);
  } else if (effects) await assertBackpressure(ctx.db, actor, "ledger", now);
  const warnings = await doneWarnings(ctx, entry);
  const id = crypto.randomUUID();
  const row = entryRow(actor, entry, input, id, now);
  const event: EventInput = {
    projectId: actor.projectId,
    kind: "ledger.appended",
    entityType: "ledger_entry",
    entityId: id,
    agentId: actor.agentId,
    data: { type: entry.type, ticketId: entry.ticketId, source: "agent", severity: input.severity ?? null },
    now,
  };
  const result: AppendResult = {
    id,
    createdAt: now.toISOString(),
    nextAction: nextActionFor(entry, critical),
  };
  if (effects) {
    // Side effects: the entry, the ticket move or the agent going offline, and their events together.
    await ctx.db.transaction().execute(async (trx) => {
      await trx.insertInto("ledger_entries").values(row).execute();
      await sideEffects(ctx, trx, entry, input, result, warnings, now);
      await recordEvent(trx, event);
    });
  } else {
    await writeEntry(ctx, row, event, now, !critical);
  }
  if (warnings.length > 0) result.warnings = warnings;
  return result;
}

/**
 * The common case, one statement without a transaction: the budget's hit (every attempt counts, unless
 * the caller counted it), and within the budget the entry and its event. The entry's ticket row is locked
 * before the event counter (`lockEntryTicket`). Over the budget: 429, nothing written.
 */
async function writeEntry(ctx: ActorCtx, row: EntryRow, event: EventInput, now: Date, budget: boolean) {
  const hit = budget ? backpressureHit(ctx.actor, "ledger", now) : null;
  const ctes = [
    ...(hit ? [sql`bp AS (${hit.query})`] : []),
    ...(row.ticket_id ? [sql`entry_ticket AS (${lockEntryTicket(row.ticket_id)})`] : []),
  ];
  const write = hit
    ? insertWhen("ledger_entries", row, sql`(SELECT count FROM bp) <= ${hit.limit}`)
    : ctx.db.insertInto("ledger_entries").values(row).returning("id");
  const wrote = await writeWithEvent(ctx.db, write, event, {
    ...(ctes.length > 0 ? { ctes: sql.join(ctes) } : {}),
    after: row.ticket_id ? ["entry_ticket"] : [],
  });
  if (!wrote && hit) throw backpressureError("ledger", hit.resetAt, now);
}

/** DONE without evidence: a TESTED or VERIFIED entry on the ticket, or without a ticket, in the session. */
async function doneWarnings(ctx: ActorCtx, entry: PreparedEntry): Promise<string[]> {
  if (entry.type !== "DONE" || await hasTestEvidence(ctx, entry)) return [];
  return [
    entry.ticketId
      ? "No TESTED or VERIFIED entry on this ticket: log what you ran and its result (type TESTED)"
      : "No TESTED or VERIFIED entry in this session: log what you ran and its result (type TESTED)",
  ];
}

type EntryRow = ReturnType<typeof entryRow>;

function entryRow(
  actor: ActorCtx["actor"],
  entry: PreparedEntry,
  input: LedgerEntryInput,
  id: string,
  now: Date,
) {
  return {
    id,
    project_id: actor.projectId,
    type: entry.type,
    content: entry.content,
    source: "agent" as const,
    agent_id: actor.agentId,
    sub_agent_name: actor.subAgentName,
    session_id: entry.sessionId,
    ticket_id: entry.ticketId,
    thread_id: entry.threadId,
    file_ref: input.fileRef ?? null,
    line_ref: input.lineRef ?? null,
    labels: toJson(entry.labels),
    payload: entry.payload ? toJson(entry.payload) : null,
    severity: input.severity ?? null,
    tokens_used: input.tokensUsed ?? null,
    activity: input.activity ?? null,
    env_health: input.envHealth ? toJson({ notes: [], ...input.envHealth }) : null,
    blocked_by_file: input.blockedByFile ?? null,
    created_at: now,
  };
}

/**
 * Contested locks first (blocker file, ticket row, agent and token rows), events last: the event cursor
 * lock is then held only at the end of the transaction, so concurrent writers cannot deadlock on it.
 */
async function sideEffects(
  ctx: ActorCtx,
  trx: Trx,
  entry: PreparedEntry,
  input: LedgerEntryInput,
  out: AppendResult,
  warnings: string[],
  now: Date,
): Promise<void> {
  const { actor } = ctx;
  const events: EventInput[] = [];
  const blocker = entry.type === "BLOCKED" ? input.blockedByFile : undefined;
  if (blocker) await lockBlockerFile(trx, actor.projectId, blocker);
  let movedTicketId: string | null = null;
  if (entry.type === "BLOCKED") {
    const moved = await blockTicket(trx, actor, entry.ticketId, now);
    if (moved.ticket) {
      out.ticket = moved.ticket;
      movedTicketId = moved.ticket.id;
    }
    if (moved.warning) warnings.push(moved.warning);
    if (moved.event) events.push(moved.event);
  }
  if (entry.type === "ALERT" && input.severity === "critical") {
    events.push(await takeAgentOffline(trx, actor, out.id, now));
    out.agentOffline = true;
  }
  for (const event of events) await recordEvent(trx, event);
  if (blocker) {
    const threadId = await openBlockerThread(trx, actor, {
      file: blocker,
      content: entry.content,
      ticketId: entry.ticketId ?? movedTicketId,
      sessionId: entry.sessionId,
      now,
    });
    if (threadId) out.threadId = threadId;
  }
}

/** Evidence: a TESTED or VERIFIED entry on the ticket, or without a ticket, in the session. */
async function hasTestEvidence(ctx: ActorCtx, entry: PreparedEntry): Promise<boolean> {
  if (!entry.ticketId && !entry.sessionId) return false;
  let query = ctx.db.selectFrom("ledger_entries").select(sql<number>`1`.as("one"))
    .where("type", "in", ["TESTED", "VERIFIED"]);
  query = entry.ticketId
    ? query.where("ticket_id", "=", entry.ticketId)
    : query.where("session_id", "=", entry.sessionId!);
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}

function nextActionFor(entry: PreparedEntry, critical: boolean): NextAction {
  if (critical) {
    return {
      action: "WAIT",
      message: "Your agent is now offline and its credentials are revoked: stop, and wait for a human to " +
        "review the alert and pair you again",
    };
  }
  switch (entry.type) {
    case "BLOCKED":
      return {
        action: "PICK_TICKET",
        message: "The ticket is blocked: follow the blocker thread, or pick another ticket (GET /context)",
      };
    case "DONE":
      return {
        action: "HANDOFF",
        message: "Log a TESTED entry if you have not, then hand off (POST /handoff) to release your claims",
      };
    default:
      return { action: "RESUME_WORK", message: "Keep going; log PROGRESS at least every 15 minutes" };
  }
}
