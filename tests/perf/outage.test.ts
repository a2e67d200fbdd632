import assert from "node:assert/strict";
import { sql } from "kysely";
import postgres from "postgres";
import { openDatabase } from "@/db/dialect.ts";
import { isDatabaseUnavailable } from "@/db/unavailable.ts";
import { test } from "../helpers/mod.ts";

/**
 * Issue 27.2: with several workers, the chaos experiment db-restart saw requests hang during a PostgreSQL
 * outage. The cause was in the driver (vendor/postgres-js, see its README): a statement sent on a
 * reserved connection between its socket's `error` and `close` events, or one waiting in the reservation
 * while the connection was busy, was never settled when the connection closed, so the transaction (its
 * next statement or Kysely's ROLLBACK) and the request waited forever. One worker met it too, rarely.
 */

const PG = Deno.env.get("TEST_DATABASE_URL") ?? "";
const NEEDS_PG = { ignore: PG === "", reason: "needs TEST_DATABASE_URL (PostgreSQL)" };

const HANG_MS = 3_000;

test(
  "PERF2-1 a transaction whose connection PostgreSQL ends always settles with a database-unavailable error, never hangs",
  async () => {
    const { db, close } = await openDatabase(PG, "/nonexistent");
    const admin = postgres(PG, { max: 1, onnotice: () => {} });
    const outcomes: string[] = [];
    try {
      // The server ends the backend while the transaction is idle; the next statement is sent 0 to 5 ms
      // later, which lands it before the FIN, between the socket's error and close, or after the close.
      for (let i = 0; i < 36; i++) {
        const settled = db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          await admin`select pg_terminate_backend(${rows[0]!.pid})`;
          await new Promise((resolve) => setTimeout(resolve, i % 6));
          await sql`select ${i}::int as again`.execute(trx);
        }).then(
          () => "answered",
          (err) => isDatabaseUnavailable(err) ? "unavailable" : `other: ${err}`,
        );
        let timer: ReturnType<typeof setTimeout> | undefined;
        const hung = new Promise<string>((resolve) => timer = setTimeout(() => resolve("hung"), HANG_MS));
        outcomes.push(await Promise.race([settled, hung]));
        clearTimeout(timer);
      }
      assert.deepEqual(
        outcomes.filter((o) => o !== "unavailable"),
        [],
        `every try settles as unavailable (503): ${outcomes.join(", ")}`,
      );
      // The pool is whole afterwards: a fresh statement is answered.
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db);
      assert.equal(rows[0]!.one, 1);
    } finally {
      await admin.end();
      await Promise.race([close(), new Promise((resolve) => setTimeout(resolve, 2_000))]);
    }
  },
  NEEDS_PG,
);

test(
  "PERF2-1 a connection whose array-type lookup fails at connect does not end the process (no unhandled rejection)",
  async () => {
    // A 1 ms statement timeout makes the driver's type lookup (the first statement of every new
    // connection) fail; 3.4.9 left that rejection unhandled, which ends the process or Web Worker.
    const client = postgres(PG, { max: 1, onnotice: () => {}, connection: { statement_timeout: 1 } });
    try {
      const first = await client`select 1 as one`.then(() => "answered", (err) => String(err));
      assert.ok(typeof first === "string");
      // Unhandled rejections surface at the next turns of the event loop: give them time to fail the test.
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await client.end({ timeout: 1 });
    }
  },
  NEEDS_PG,
);
