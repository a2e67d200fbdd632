import type { ProjectSettings } from "@/db/tables/foundation.ts";
import type { AcceptanceCriterion } from "@/db/tables/work.ts";
import { boardColumns, REVIEW_STATUSES, reviewColumn } from "@/domain/core/workflow.ts";
import type { ReviewMode } from "@/shared/vocabulary.ts";

export type { ReviewMode };

/** Fallback review columns of a custom board that has neither `in_review` nor `review`. */
const OTHER_REVIEW_COLUMNS = ["needs_review", "qa"] as const;

/** Thresholds of a trivial change in review mode `auto` (design: HAND-013). */
export const TRIVIAL_MAX_FILES = 2;
export const TRIVIAL_MAX_LINES = 20;

/**
 * The board's review status: `in_review` if the board has it, else `review`; a custom board with
 * neither uses its `needs_review` or `qa` column, and `review` as the last resort.
 */
export function boardReviewStatus(settings: ProjectSettings): string {
  const columns = boardColumns(settings);
  return reviewColumn(settings) ?? OTHER_REVIEW_COLUMNS.find((s) => columns.includes(s)) ?? "review";
}

export function isReviewStatus(status: string): boolean {
  return (REVIEW_STATUSES as readonly string[]).includes(status);
}

/**
 * Custom review config (design: HAND-015), stored in project settings as
 * `reviewConfig: { blocking?: boolean }`. Review blocks (ticket goes to review) unless `blocking` is false.
 */
export function customReviewBlocks(settings: ProjectSettings): boolean {
  const config = settings.reviewConfig;
  if (config && typeof config === "object" && !Array.isArray(config)) {
    return (config as Record<string, unknown>).blocking !== false;
  }
  return true;
}

/** Changed lines from a `git diff --shortstat`-style text ("3 files changed, 10 insertions(+), 2 deletions(-)"). */
export function changedLines(diffStat: string | undefined): number | null {
  if (!diffStat) return null;
  const ins = /(\d+)\s+insertions?\(\+\)/.exec(diffStat);
  const del = /(\d+)\s+deletions?\(-\)/.exec(diffStat);
  if (!ins && !del) return null;
  return Number(ins?.[1] ?? 0) + Number(del?.[1] ?? 0);
}

export interface TrivialInput {
  riskClass: string | null;
  criteria: AcceptanceCriterion[];
  /** Files the handoff touched: released claim files, or the ticket's expected files when none. */
  files: string[];
  diffStat: string | undefined;
}

/**
 * A change is trivial (design: HAND-013) when the ticket's risk class is `local`, no acceptance
 * criterion requires evidence, it touches at most TRIVIAL_MAX_FILES files and, when `diffStat` reports line counts,
 * at most TRIVIAL_MAX_LINES lines changed. A trivial change in `auto` mode goes straight to `done`.
 */
export function isTrivialChange(input: TrivialInput): boolean {
  if (input.riskClass !== "local") return false;
  if (input.criteria.some((c) => c.requiresEvidence === true)) return false;
  if (input.files.length > TRIVIAL_MAX_FILES) return false;
  const lines = changedLines(input.diffStat);
  return lines === null || lines <= TRIVIAL_MAX_LINES;
}

/** The single status a handoff moves the ticket to, and whether review is required. */
export function handoffTarget(
  mode: ReviewMode,
  settings: ProjectSettings,
  currentStatus: string,
  trivial: () => boolean,
): { status: string; reviewRequired: boolean } {
  if (isReviewStatus(currentStatus)) return { status: currentStatus, reviewRequired: true };
  const review = { status: boardReviewStatus(settings), reviewRequired: true };
  const done = { status: "done", reviewRequired: false };
  switch (mode) {
    case "light":
      return done;
    case "medium":
    case "strict":
      return review;
    case "auto":
      return trivial() ? done : review;
    case "custom":
      return customReviewBlocks(settings) ? review : done;
  }
}
