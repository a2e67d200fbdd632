import { type Expression, type RawBuilder, sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";

/**
 * Several row queries in ONE statement (issue 12: GET /context was some fifteen statements, each a
 * pool checkout and a round trip): each query becomes one JSON column holding its rows in the query's
 * order, named `list_<name>`. `listColumns` gives the columns (each preceded by a comma, to follow other
 * columns); `listsOf` reads them back.
 */
export function listColumns(lists: Record<string, Expression<unknown>>): RawBuilder<unknown> {
  const names = Object.keys(lists);
  if (names.length === 0) return sql``;
  return sql.join(
    names.map((name) =>
      sql`, (SELECT coalesce(json_agg(q), '[]'::json) FROM (${lists[name]}) q) AS ${sql.ref(`list_${name}`)}`
    ),
    sql``,
  );
}

export function listsOf(row: unknown, names: string[]): Record<string, unknown[]> {
  const all = (row ?? {}) as Record<string, unknown>;
  return Object.fromEntries(names.map((name) => {
    const value = all[`list_${name}`];
    return [name, (typeof value === "string" ? JSON.parse(value) : value ?? []) as unknown[]];
  }));
}

/** The rows of every query of `lists`, in one statement. */
export async function readLists(
  db: DbOrTrx,
  lists: Record<string, Expression<unknown>>,
): Promise<Record<string, unknown[]>> {
  const names = Object.keys(lists);
  if (names.length === 0) return {};
  const columns = listColumns(lists);
  // The column list starts with a comma: lead with a constant.
  const result = await sql`SELECT 1 AS one${columns}`.execute(db);
  return listsOf(result.rows[0], names);
}

/** The row type of a query builder. */
export type RowOf<Q extends { execute(): Promise<unknown[]> }> = Awaited<ReturnType<Q["execute"]>>[number];

/**
 * The rows of a list query read through JSON: the `dates` columns are timestamps, which JSON carries as
 * text; they become Date again, as the driver gives them. `query` only gives the row type.
 */
export function revived<Q extends { execute(): Promise<unknown[]> }>(
  _query: Q,
  rows: unknown[] | undefined,
  dates: string[] = [],
): Array<RowOf<Q>> {
  return (rows ?? []).map((raw) => {
    const row = { ...(raw as Record<string, unknown>) };
    for (const key of dates) {
      const value = row[key];
      if (typeof value === "string") row[key] = new Date(value);
    }
    return row as RowOf<Q>;
  });
}
