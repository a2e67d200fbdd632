import type { DbOrTrx } from "@/db/database.ts";
import type { ProjectSettings } from "@/db/tables/foundation.ts";
import { type Actor, actorDisplayName } from "@/domain/core/actor.ts";
import type { ReviewMode } from "@/domain/core/workflow.ts";
import { parseTicketRef, ticketNotFound } from "@/domain/core/ticket-refs.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";

export interface ProjectBoard {
  id: string;
  prefix: string;
  mode: ReviewMode;
  settings: ProjectSettings;
}

/** The project's board settings and review mode, read in the caller's transaction. */
export async function loadProject(db: DbOrTrx, projectId: string): Promise<ProjectBoard> {
  const row = await db.selectFrom("projects").select(["id", "ticket_prefix", "review_mode", "settings"])
    .where("id", "=", projectId).executeTakeFirstOrThrow();
  return { id: row.id, prefix: row.ticket_prefix, mode: row.review_mode, settings: row.settings ?? {} };
}

export type ReviewEvent = "submitted" | "changes_requested" | "approved";

/**
 * One `reviewHistory` item (design): `{ event, agentId, agentName, from, to, at }` plus `handoff` on
 * submission and `comment` on approval.
 */
export function reviewEntry(
  actor: Actor,
  event: ReviewEvent,
  from: string,
  to: string,
  now: Date,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    event,
    agentId: actor.agentId,
    agentName: actorDisplayName(actor),
    from,
    to,
    at: now.toISOString(),
    ...extra,
  };
}

/** A ticket with what a write on it decides from, read in one statement (`loadTicketTarget`). */
export interface TicketTarget {
  ticket: TicketRow;
  project: ProjectBoard;
  /** The assignee's name (the held-by-another refusal names it), or null. */
  assigneeName: string | null;
  /** Whether the ticket has a TESTED or VERIFIED entry (guard 5). */
  tested: boolean;
}

/**
 * The ticket a reference (id or key) names in the project, its project's board settings, its assignee's
 * name and its test evidence, in one statement. Refuses a reference that does not resolve with 404.
 */
export async function loadTicketTarget(db: DbOrTrx, projectId: string, ref: string): Promise<TicketTarget> {
  const parsed = parseTicketRef(ref);
  if (!parsed) throw ticketNotFound(ref);
  let query = db.selectFrom("tickets as t")
    .innerJoin("projects as p", "p.id", "t.project_id")
    .leftJoin("agents as a", "a.id", "t.assignee_agent_id")
    .selectAll("t")
    .select([
      "p.ticket_prefix as x_prefix",
      "p.review_mode as x_mode",
      "p.settings as x_settings",
      "a.name as x_assignee_name",
    ])
    .select((eb) =>
      eb.exists(
        eb.selectFrom("ledger_entries as l").select("l.id").whereRef("l.ticket_id", "=", "t.id")
          .whereRef("l.project_id", "=", "t.project_id").where("l.type", "in", ["TESTED", "VERIFIED"]),
      ).as("x_tested")
    )
    .where("t.project_id", "=", projectId);
  query = "id" in parsed
    ? query.where("t.id", "=", parsed.id)
    : query.where("p.ticket_prefix", "=", parsed.prefix).where("t.number", "=", parsed.number);
  const row = await query.executeTakeFirst();
  if (!row) throw ticketNotFound(ref);
  const { x_prefix, x_mode, x_settings, x_assignee_name, x_tested, ...ticket } = row;
  return {
    ticket,
    project: { id: projectId, prefix: x_prefix, mode: x_mode, settings: x_settings ?? {} },
    assigneeName: x_assignee_name,
    tested: Boolean(x_tested),
  };
}
