import { sql } from "kysely";
import type { ServiceCtx } from "@/domain/core/context.ts";
import type { DashboardMember } from "./access.ts";
import type { ClaimRow } from "./claims.ts";
import { identityName } from "@/domain/core/actor.ts";
import { entriesOverlap, sameFile } from "@/shared/file-path.ts";

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

/**
 * The claims map's marks for coordination (issue 24 point 8): for each claimed file, who waits for it
 * (waiting requests of an overlapping entry, in arrival order) and who asked its holder to release it
 * (pending release requests). One statement each; the map draws them beside the file's holder.
 */
export async function coordinationMarks(
  ctx: ServiceCtx,
  member: DashboardMember,
  claims: ClaimRow[],
): Promise<Pick<ClaimsMap, "queues" | "releaseRequests">> {
  const projectId = member.project.id;
  const [waiting, asked] = await Promise.all([
    ctx.db.selectFrom("claim_requests as r").innerJoin("agents as a", "a.id", "r.agent_id")
      .select(["r.files", "a.name", "r.sub_agent_name"])
      .where("r.project_id", "=", projectId).where("r.status", "=", "waiting").orderBy("r.seq").execute(),
    ctx.db.selectFrom("claim_release_requests as q").innerJoin("agents as a", "a.id", "q.asker_agent_id")
      .select(["q.files", "a.name", "q.asker_sub_agent_name"])
      .where("q.project_id", "=", projectId).where("q.status", "=", "pending").orderBy("q.created_at")
      .execute(),
  ]);
  const held = claims.flatMap((c) => c.files);
  const queues: Record<string, string[]> = {};
  const releaseRequests: Record<string, { requester: string }[]> = {};
  for (const r of waiting) {
    const name = identityName(r.name, r.sub_agent_name);
    for (const file of held.filter((f) => (r.files as string[]).some((w) => entriesOverlap(w, f)))) {
      (queues[file] ??= []).push(name);
    }
  }
  for (const q of asked) {
    const requester = identityName(q.name, q.asker_sub_agent_name);
    for (const file of held.filter((f) => (q.files as string[]).some((w) => sameFile(w, f)))) {
      (releaseRequests[file] ??= []).push({ requester });
    }
  }
  return {
    ...(Object.keys(queues).length > 0 ? { queues } : {}),
    ...(Object.keys(releaseRequests).length > 0 ? { releaseRequests } : {}),
  };
}
