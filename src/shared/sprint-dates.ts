const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function validDay(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/**
 * Sprint dates (SPRINT-027): an ISO 8601 calendar date `YYYY-MM-DD`, or a date-time with seconds
 * optional and an explicit offset (`Z` or `±hh:mm`). A date-time without an offset is ambiguous and
 * refused, as are impossible dates (2026-02-30) and times (25:00).
 */
export function isSprintDate(value: string): boolean {
  const d = DATE.exec(value);
  if (d) return validDay(Number(d[1]), Number(d[2]), Number(d[3]));
  const t = DATE_TIME.exec(value);
  if (!t) return false;
  if (!validDay(Number(t[1]), Number(t[2]), Number(t[3]))) return false;
  if (Number(t[4]) > 23 || Number(t[5]) > 59 || Number(t[6] ?? 0) > 59) return false;
  const offset = t[7]!;
  if (offset !== "Z" && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4, 6)) > 59)) return false;
  return !Number.isNaN(Date.parse(value));
}

/**
 * The instant range a sprint date covers: a date-time is one instant; a calendar date covers that whole
 * day in UTC. "End not earlier than start" compares the end's last instant with the start's first, so a
 * one-day sprint (same date twice) and a start time later on the end's date are both accepted.
 */
export function dateRange(value: string): { first: number; last: number } {
  if (DATE.test(value)) {
    const first = Date.parse(`${value}T00:00:00Z`);
    return { first, last: first + 86_400_000 - 1 };
  }
  const at = Date.parse(value);
  return { first: at, last: at };
}

export function endBeforeStart(start: string | null, end: string | null): boolean {
  if (!start || !end) return false;
  return dateRange(end).last < dateRange(start).first;
}
