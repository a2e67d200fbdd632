import { type Insertable, type RawBuilder, sql } from "kysely";
import type { Database } from "./database.ts";

/**
 * `INSERT INTO table (columns) SELECT values WHERE condition RETURNING id`: one row, written only when
 * `condition` holds (a VALUES list cannot be conditional). The parameters take the target columns' types,
 * as in a VALUES list (PostgreSQL types an INSERT's SELECT outputs from its columns).
 */
export function insertWhen<T extends keyof Database & string>(
  table: T,
  row: Insertable<Database[T]>,
  condition: RawBuilder<unknown>,
): RawBuilder<{ id: string }> {
  const entries = Object.entries(row).filter(([, value]) => value !== undefined);
  return sql<{ id: string }>`INSERT INTO ${sql.table(table)} (${sql.join(entries.map(([c]) => sql.ref(c)))})
    SELECT ${sql.join(entries.map(([, v]) => sql`${v}`))} WHERE ${condition} RETURNING id`;
}
