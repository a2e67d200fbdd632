import type { ProjectSettings } from "@/db/tables/foundation.ts";

/** The default board's columns, in order (spec: States and transitions). */
export const DEFAULT_COLUMNS = [
  "backlog",
  "claimed",
  "in_progress",
  "blocked",
  "needs_review",
  "review",
  "done",
  "cancelled",
] as const;

/** Statuses that count as "in review" wherever the spec says so. */
export const REVIEW_STATUSES = ["review", "in_review", "qa", "needs_review"] as const;
export const TERMINAL_STATUSES = ["done", "cancelled"] as const;

/** The project's board: its custom columns, or the default board. */
export function boardColumns(settings: ProjectSettings): string[] {
  const custom = settings.columns;
  return Array.isArray(custom) && custom.length > 0 ? [...custom] : [...DEFAULT_COLUMNS];
}

export function isCustomBoard(settings: ProjectSettings): boolean {
  return Array.isArray(settings.columns) && settings.columns.length > 0;
}
