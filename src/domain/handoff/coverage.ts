import type { z } from "zod";
import type { CoverageSchema } from "@/contracts/handoff.ts";
import type { DbOrTrx } from "@/db/database.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { DomainError, recovery } from "@/domain/core/errors.ts";
import { assertFencesCurrent, type FencedEntry } from "@/domain/core/fences.ts";
import { fileKey } from "@/shared/file-path.ts";
import type { HandoffInput } from "./types.ts";

/** The coverage receipt of a handoff (issue 25). */
export type Coverage = z.output<typeof CoverageSchema>;

/** The changed files of a handoff as entries (path, with the fence when sent). */
export function changedEntries(input: Pick<HandoffInput, "changedFiles">): FencedEntry[] | null {
  if (input.changedFiles === undefined) return null;
  return input.changedFiles.map((f) => typeof f === "string" ? { file: f } : f);
}

/**
 * Issue 25: checks the fences sent (409 FENCE_STALE) and compares the changed files with every file the
 * session held at any time (released ones count) and those the identity holds now (`touched`). With the
 * project's `requireClaimCoverage`, an uncovered file refuses the handoff before anything is written (409
 * COVERAGE_INCOMPLETE, recovery CLAIM_FILES); otherwise it is a warning.
 */
export async function handoffCoverage(
  db: DbOrTrx,
  at: { actor: Actor; sessionId: string; now: Date; strict: boolean },
  changed: FencedEntry[],
  touched: string[],
): Promise<{ coverage: Coverage; warning: string | null }> {
  await assertFencesCurrent(db, at.actor, changed, at.now);
  const rows = await db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
    .select("f.file").where("c.project_id", "=", at.actor.projectId).where("c.session_id", "=", at.sessionId)
    .execute();
  const held = new Set([...rows.map((r) => r.file), ...touched].map(fileKey));
  const files = [...new Set(changed.map((c) => c.file))];
  const covered = files.filter((f) => held.has(fileKey(f)));
  const uncovered = files.filter((f) => !held.has(fileKey(f)));
  const ratio = files.length === 0 ? 1 : Math.round((covered.length / files.length) * 10_000) / 10_000;
  const coverage = { covered, uncovered, ratio };
  if (uncovered.length === 0) return { coverage, warning: null };
  const list = uncovered.length > 10
    ? `${uncovered.slice(0, 10).join(", ")} and ${uncovered.length - 10} more`
    : uncovered.join(", ");
  if (at.strict) {
    throw new DomainError(
      "conflict",
      "COVERAGE_INCOMPLETE",
      `Cannot hand off: this session never claimed ${list}. Nothing was written; the session stays open`,
      {
        files: uncovered,
        coverage,
        recovery: recovery(
          "CLAIM_FILES",
          "POST /claim",
          "The project requires every changed file to be claimed: claim these files, then hand off again",
          { files: uncovered.slice(0, 20) },
        ),
      },
    );
  }
  return {
    coverage,
    warning: `Changed files this session never claimed: ${list} (claim files before editing)`,
  };
}
