import { sql } from "kysely";
import type { ServiceCtx } from "@/domain/core/context.ts";
import type { DashboardMember } from "./access.ts";
import type { ClaimRow } from "./claims.ts";

/** How far back "Hot files" looks. */
export const HOT_FILES_DAYS = 30;
/** How many files each "Hot files" list names. */
export const HOT_FILES_SHOWN = 10;
const DAY_MS = 86_400_000;

/** One node of the claims map: a folder (with children) or a claimed file (with its holder). */
export interface ClaimTreeNode {
  name: string;
  path: string;
  holder: string | null;
  claimId: string | null;
  children: ClaimTreeNode[];
}

/**
 * What the claims map draws. `queues` and `releaseRequests` are the places for the claim wait queue and
 * the pending release requests: undefined until their data sources exist (the map then draws nothing for
 * them), keyed by file path when they do.
 */
export interface ClaimsMap {
  tree: ClaimTreeNode[];
  holders: string[];
  queues?: Record<string, string[]> | undefined;
  releaseRequests?: Record<string, { requester: string }[]> | undefined;
}

/** The live claims' files as a folder tree, each file naming its holder; pure (from `liveClaims`). */
export function claimsMap(claims: ClaimRow[]): ClaimsMap {
  const root: ClaimTreeNode = { name: "", path: "", holder: null, claimId: null, children: [] };
  const holders = new Set<string>();
  for (const c of claims) {
    holders.add(c.holder);
    for (const file of c.files) {
      let node = root;
      const parts = file.split("/").filter((p) => p !== "");
      parts.forEach((part, i) => {
        const path = parts.slice(0, i + 1).join("/");
        let next = node.children.find((n) =>
          n.name === part && (i < parts.length - 1) === (n.holder === null)
        );
        if (!next) {
          const leaf = i === parts.length - 1;
          next = {
            name: part,
            path,
            holder: leaf ? c.holder : null,
            claimId: leaf ? c.id : null,
            children: [],
          };
          node.children.push(next);
        }
        node = next;
      });
    }
  }
  const sort = (n: ClaimTreeNode) => {
    n.children.sort((a, b) =>
      (a.holder === null) === (b.holder === null) ? a.name.localeCompare(b.name) : a.holder === null ? -1 : 1
    );
    n.children.forEach(sort);
  };
  sort(root);
  return { tree: root.children, holders: [...holders].sort() };
}

export interface HotFile {
  file: string;
  claims: number;
  holders: number;
}

/**
 * "Hot files": over the last 30 days, the files claimed most often, and the most contended ones (held
 * by the most distinct agents). Two grouped queries on the project's claim files.
 */
export async function hotFiles(
  ctx: ServiceCtx,
  member: DashboardMember,
): Promise<{ mostClaimed: HotFile[]; mostContended: HotFile[] }> {
  const since = new Date(ctx.clock.now().getTime() - HOT_FILES_DAYS * DAY_MS);
  const base = () =>
    ctx.db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
      .select([
        "f.file",
        sql<number>`count(*)::int`.as("claims"),
        sql<number>`count(distinct c.agent_id::text || coalesce(c.sub_agent_name, ''))::int`.as("holders"),
      ])
      .where("f.project_id", "=", member.project.id).where("c.claimed_at", ">=", since).groupBy("f.file");
  const [mostClaimed, mostContended] = await Promise.all([
    base().orderBy("claims", "desc").orderBy("f.file").limit(HOT_FILES_SHOWN).execute(),
    base().having(sql<number>`count(distinct c.agent_id::text || coalesce(c.sub_agent_name, ''))`, ">", 1)
      .orderBy("holders", "desc").orderBy("claims", "desc").orderBy("f.file").limit(HOT_FILES_SHOWN)
      .execute(),
  ]);
  return { mostClaimed, mostContended };
}
