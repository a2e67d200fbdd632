import type { ColumnType, Generated } from "kysely";

/** A timestamptz column: read as Date, written as Date. */
export type Timestamp = ColumnType<Date, Date, Date>;
/** A nullable timestamptz column. */
export type NullableTimestamp = ColumnType<Date | null, Date | null | undefined, Date | null>;
/**
 * A jsonb column: read back parsed, written as a JSON string (see `toJson`), because postgres.js
 * would otherwise send JS arrays as PostgreSQL arrays.
 */
export type Json<T> = ColumnType<T, string, string>;
export type JsonDefault<T> = ColumnType<T, string | undefined, string>;
export type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;
export type { Generated };

/** Serializes a value for a jsonb column. */
export function toJson(value: unknown): string {
  return JSON.stringify(value);
}
