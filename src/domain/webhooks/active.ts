import type { Db } from "@/db/database.ts";

/** A process's delivery round on one database (see ./run.ts). */
export interface KickState {
  running: Promise<void> | null;
  again: boolean;
}

/**
 * Databases (one per app) on which this process has seen a webhook endpoint or a delivery: only there
 * does a write request start a delivery round, so a service without webhooks sends no extra statement.
 */
const active = new WeakMap<Db, KickState>();

/** Marks webhooks as in use on `db`: writes kick deliveries from now on. */
export function markWebhooksActive(db: Db): KickState {
  let state = active.get(db);
  if (!state) {
    state = { running: null, again: false };
    active.set(db, state);
  }
  return state;
}

export function webhooksActive(db: Db): boolean {
  return active.has(db);
}
