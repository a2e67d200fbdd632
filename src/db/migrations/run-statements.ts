import { type Kysely, sql } from "kysely";

/** Runs DDL one statement at a time: postgres.js prepares each query, which allows one statement only. */
export async function runStatements(db: Kysely<unknown>, statements: string[]): Promise<void> {
  for (const statement of statements) {
    await sql.raw(statement).execute(db);
  }
}
