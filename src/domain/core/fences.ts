/**
 * Fencing tokens and the question a gate asks (issue 25): does the caller hold these entries now, and is
 * the fence it names still current? Used by POST /claim/verify and by the writes that name a file with a
 * fence (POST /ledger, POST /handoff).
 */
import type { DbOrTrx } from "@/db/database.ts";
import { type Actor, identityName } from "./actor.ts";
import { type Holder, liveHolders } from "./claim-holders.ts";
import { DomainError, recovery } from "./errors.ts";
import { fileKey } from "@/shared/file-path.ts";

/** An entry as a write or a gate names it: a path, with the fence its author holds when it knows it. */
export interface FencedEntry {
  file: string;
  fence?: number | undefined;
}

export type EntryStatus = "held" | "not_claimed" | "held_by_other" | "fence_stale";

/** One entry judged against the live holders: the current fence and holder name when someone holds it. */
export interface JudgedEntry {
  file: string;
  status: EntryStatus;
  fence?: number;
  holder?: string;
}

/** Whether `holder` holds for `actor`: its own claim, or its parent's with allowSubAgents. */
export function holdsFor(holder: Holder, actor: Pick<Actor, "agentId" | "subAgentName">): boolean {
  if (holder.agentId !== actor.agentId) return false;
  if (holder.subAgentName === actor.subAgentName) return true;
  return holder.subAgentName === null && actor.subAgentName !== null && holder.allowSubAgents;
}

/**
 * Judges each entry: a fence that is not the live holder's is `fence_stale` (the claim ended, or another
 * grant holds the file now); otherwise `held` (by the caller or its parent), `held_by_other` or
 * `not_claimed`. Letter case is ignored as by claims.
 */
export async function judgeEntries(
  db: DbOrTrx,
  actor: Pick<Actor, "projectId" | "agentId" | "subAgentName">,
  entries: FencedEntry[],
  now: Date,
): Promise<JudgedEntry[]> {
  const files = [...new Set(entries.map((e) => e.file))];
  const holders = await liveHolders(db, actor.projectId, files, now);
  const byFile = new Map(holders.map((h) => [fileKey(h.file), h]));
  return entries.map((entry) => {
    const h = byFile.get(fileKey(entry.file));
    const current = h
      ? {
        ...(h.fence !== undefined ? { fence: h.fence } : {}),
        holder: identityName(h.agentName, h.subAgentName),
      }
      : {};
    if (entry.fence !== undefined && h?.fence !== entry.fence) {
      return { file: entry.file, status: "fence_stale", ...current };
    }
    if (!h) return { file: entry.file, status: "not_claimed" };
    return { file: entry.file, status: holdsFor(h, actor) ? "held" : "held_by_other", ...current };
  });
}

/**
 * Refuses a write that names a fence no longer current for its file (or a file held by someone else
 * under that fence): 409 FENCE_STALE with `details { file, yourFence, currentFence?, holder? }` and
 * recovery RECLAIM_FILES. Entries without a fence are not checked here.
 */
export async function assertFencesCurrent(
  db: DbOrTrx,
  actor: Pick<Actor, "projectId" | "agentId" | "subAgentName">,
  entries: FencedEntry[],
  now: Date,
): Promise<void> {
  const fenced = entries.filter((e) => e.fence !== undefined);
  if (fenced.length === 0) return;
  const judged = await judgeEntries(db, actor, fenced, now);
  const stale = judged.findIndex((j) => j.status !== "held");
  if (stale < 0) return;
  const j = judged[stale]!;
  const yourFence = fenced[stale]!.fence!;
  const state = j.holder
    ? `${j.holder} holds it now under fence ${j.fence}`
    : "the claim ended and nobody holds it now";
  throw new DomainError(
    "conflict",
    "FENCE_STALE",
    `Cannot write "${j.file}" with fence ${yourFence}: ${state}. Nothing was written`,
    {
      file: j.file,
      yourFence,
      ...(j.fence !== undefined ? { currentFence: j.fence } : {}),
      ...(j.holder !== undefined ? { holder: j.holder } : {}),
      recovery: recovery(
        "RECLAIM_FILES",
        "POST /claim",
        "Your claim on the file ended: claim it again (POST /claim), check your work against what changed " +
          "meanwhile, then retry with the new fence",
        { files: [j.file] },
      ),
    },
  );
}
