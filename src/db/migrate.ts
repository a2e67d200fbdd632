import type { Kysely } from "kysely";
import { type Migration, type MigrationProvider, Migrator } from "kysely/migration";
import type { Database } from "./database.ts";
import * as m0001 from "./migrations/0001_foundation.ts";
import * as m0002 from "./migrations/0002_work.ts";
import * as m0003 from "./migrations/0003_sessions.ts";
import * as m0004 from "./migrations/0004_tickets.ts";
import * as m0005 from "./migrations/0005_workflow.ts";
import * as m0006 from "./migrations/0006_claims.ts";
import * as m0007 from "./migrations/0007_ledger.ts";
import * as m0008 from "./migrations/0008_handoff.ts";
import * as m0009 from "./migrations/0009_shared.ts";
import * as m0010 from "./migrations/0010_context.ts";
import * as m0011 from "./migrations/0011_ticket_activity.ts";
import * as m0012 from "./migrations/0012_instances.ts";
import * as m0013 from "./migrations/0013_races.ts";
import * as m0014 from "./migrations/0014_secrets.ts";
import * as m0015 from "./migrations/0015_oauth_keys.ts";
import * as m0016 from "./migrations/0016_oauth_clients.ts";
import * as m0017 from "./migrations/0017_oauth_tokens.ts";
import * as m0018 from "./migrations/0018_perf.ts";
import * as m0019 from "./migrations/0019_dashboard_perf.ts";
import * as m0020 from "./migrations/0020_context_bounded.ts";
import * as m0021 from "./migrations/0021_claim_paths.ts";
import * as m0022 from "./migrations/0022_claim_queue.ts";
import * as m0023 from "./migrations/0023_release_requests.ts";
import * as m0024 from "./migrations/0024_claim_entries.ts";
import * as m0025 from "./migrations/0025_webhooks.ts";
import * as m0026 from "./migrations/0026_ledger_chain.ts";
import * as m0027 from "./migrations/0027_claim_fences.ts";
import * as m0028 from "./migrations/0028_project_counts.ts";

/**
 * Every migration, in order. One set serves PGlite and PostgreSQL alike. Each area owns its file
 * (0003 sessions, 0004 tickets, 0005 workflow, 0006 claims, 0007 ledger, 0008 handoff, 0009 shared, 0010 context);
 * a later change adds a new numbered file rather than editing a released one.
 */
const migrations: Record<string, Migration> = {
  "0001_foundation": m0001,
  "0002_work": m0002,
  "0003_sessions": m0003,
  "0004_tickets": m0004,
  "0005_workflow": m0005,
  "0006_claims": m0006,
  "0007_ledger": m0007,
  "0008_handoff": m0008,
  "0009_shared": m0009,
  "0010_context": m0010,
  "0011_ticket_activity": m0011,
  "0012_instances": m0012,
  "0013_races": m0013,
  "0014_secrets": m0014,
  "0015_oauth_keys": m0015,
  "0016_oauth_clients": m0016,
  "0017_oauth_tokens": m0017,
  "0018_perf": m0018,
  "0019_dashboard_perf": m0019,
  "0020_context_bounded": m0020,
  "0021_claim_paths": m0021,
  "0022_claim_queue": m0022,
  "0023_release_requests": m0023,
  "0024_claim_entries": m0024,
  "0025_webhooks": m0025,
  "0026_ledger_chain": m0026,
  "0027_claim_fences": m0027,
  "0028_project_counts": m0028,
};

const provider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};

/** Brings the schema up to date; throws with the failing migration's error. */
export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  await migrate(db, (m) => m.migrateToLatest());
}

/** Brings the schema up to the migration `name` (tests of a migration's data step). */
export async function migrateTo(db: Kysely<Database>, name: string): Promise<void> {
  await migrate(db, (m) => m.migrateTo(name));
}

async function migrate(
  db: Kysely<Database>,
  run: (migrator: Migrator) => ReturnType<Migrator["migrateToLatest"]>,
): Promise<void> {
  const migrator = new Migrator({ db: db as unknown as Kysely<unknown>, provider });
  const { error, results } = await run(migrator);
  const failed = results?.find((r) => r.status === "Error");
  if (error) {
    const name = failed ? ` "${failed.migrationName}"` : "";
    throw new Error(`Cannot migrate${name}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

/** Names of the migrations this build has that the database has not run (empty when current). */
export async function pendingMigrations(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({ db: db as unknown as Kysely<unknown>, provider });
  const all = await migrator.getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
