import type { DbOrTrx } from "@/db/database.ts";
import type { ProjectSettings } from "@/db/tables/foundation.ts";
import { type Actor, actorDisplayName } from "@/domain/shared/actor.ts";
import type { ReviewMode } from "./workflow.ts";

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
