import type { DbOrTrx } from "@/db/database.ts";
import type { ProjectSettings } from "@/db/tables/foundation.ts";

export interface ProjectInfo {
  id: string;
  prefix: string;
  settings: ProjectSettings;
  briefVersion: number;
  reviewMode: string;
}

/** The caller's project as the ticket verbs need it. */
export async function loadProject(db: DbOrTrx, projectId: string): Promise<ProjectInfo> {
  const p = await db.selectFrom("projects").select([
    "id",
    "ticket_prefix",
    "settings",
    "brief_version",
    "review_mode",
  ])
    .where("id", "=", projectId).executeTakeFirstOrThrow();
  return {
    id: p.id,
    prefix: p.ticket_prefix,
    settings: p.settings ?? {},
    briefVersion: p.brief_version,
    reviewMode: p.review_mode,
  };
}

/** Where a ticket can be read: `GET /ticket?id=...` under the REST base. */
export function ticketUrl(publicUrl: string, ticketId: string): string {
  return `${publicUrl.replace(/\/$/, "")}/api/ticket?id=${ticketId}`;
}
