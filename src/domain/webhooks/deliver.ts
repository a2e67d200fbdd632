import { type Selectable, sql } from "kysely";
import type { Clock } from "@/clock.ts";
import type { Db, Trx } from "@/db/database.ts";
import type { WebhookAttempt, WebhookDeliveriesTable, WebhookEndpointsTable } from "@/db/tables/webhooks.ts";
import { toJson } from "@/db/tables/types.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { checkDestination, type DestinationPolicy, DestinationRefused } from "./address.ts";
import { signatureHeader } from "./sign.ts";
import { markWebhooksActive } from "./active.ts";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The wait before each retry (after the 1st failed attempt: 5 s, then 5 min, 30 min, 2 h, 5 h, 10 h,
 * 10 h), each lengthened by a random 0 to 20 % (jitter). The first attempt is immediate; after the 8th
 * failure (at least 27 h 35 min after the first) the delivery is given up and the endpoint's next one
 * goes out.
 */
export const RETRY_SCHEDULE_MS = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
/** An attempt that has no answer within this long failed. */
export const DELIVERY_TIMEOUT_MS = 10 * SECOND;
/** An endpoint failing without a single success for this long is disabled (`webhook.disabled`). */
export const DISABLE_AFTER_FAILING_MS = 3 * DAY;
/** How long an instance holds a delivery it attempts (longer than the timeout). */
const LEASE_MS = 60 * SECOND;
/** The attempts a delivery keeps in its log (the newest). */
const ATTEMPT_LOG_MAX = 20;

export interface DeliveryDeps {
  db: Db;
  clock: Clock;
  destinations: DestinationPolicy;
  /** The HTTP client (tests may pass another); `redirect: "manual"` is always set. */
  fetch?: typeof fetch | undefined;
  timeoutMs?: number | undefined;
}

type Delivery = Selectable<WebhookDeliveriesTable>;
type Endpoint = Selectable<WebhookEndpointsTable>;

interface Outcome {
  status: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * Leases the due head delivery of each enabled endpoint (its oldest pending one: a failing delivery
 * holds back the endpoint's later ones), at most `limit`. One statement with `FOR UPDATE SKIP LOCKED`
 * and a lease column, so instances on one database never attempt the same delivery at once.
 */
async function leaseDue(deps: DeliveryDeps, limit: number): Promise<Delivery[]> {
  const now = deps.clock.now();
  const until = new Date(now.getTime() + LEASE_MS);
  const result = await sql<Delivery>`WITH due AS (
      SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.status = 'pending' AND e.enabled AND d.next_attempt_at <= ${now}
        AND (d.lease_until IS NULL OR d.lease_until <= ${now})
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o
          WHERE o.endpoint_id = d.endpoint_id AND o.status = 'pending' AND o.n < d.n)
      ORDER BY d.n LIMIT ${limit} FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE webhook_deliveries w SET lease_until = ${until} FROM due WHERE w.id = due.id RETURNING w.*`
    .execute(deps.db);
  return result.rows;
}

/** The delivery's body: `{ type, timestamp, data }`, data the event as GET /events shows it plus projectId. */
async function payloadOf(db: Db, d: Delivery): Promise<string | null> {
  const e = await db.selectFrom("events as e").leftJoin("agents as a", "a.id", "e.agent_id")
    .select(["e.seq", "e.kind", "e.entity_type", "e.entity_id", "e.agent_id", "e.data", "e.created_at"])
    .select("a.partner_managed_session_id")
    .where("e.project_id", "=", d.project_id).where("e.seq", "=", d.seq).executeTakeFirst();
  if (!e) return null;
  const createdAt = e.created_at.toISOString();
  return JSON.stringify({
    type: e.kind,
    timestamp: createdAt,
    data: {
      seq: Number(e.seq),
      kind: e.kind,
      entityType: e.entity_type,
      entityId: e.entity_id,
      agentId: e.agent_id,
      data: e.data,
      createdAt,
      projectId: d.project_id,
      ...(e.partner_managed_session_id ? { partnerManagedSessionId: e.partner_managed_session_id } : {}),
    },
  });
}

/** The secrets that sign now: the current one, and the previous one during its overlap. */
function signingSecrets(e: Endpoint, now: Date): string[] {
  return e.previous_secret && e.previous_secret_until && e.previous_secret_until > now
    ? [e.secret, e.previous_secret]
    : [e.secret];
}

/** One POST of the delivery (the destination checked again first); never throws. */
async function attempt(deps: DeliveryDeps, d: Delivery, e: Endpoint): Promise<Outcome> {
  const started = performance.now();
  const done = (status: number | null, error: string | null) => ({
    status,
    error,
    durationMs: Math.round(performance.now() - started),
  });
  try {
    const body = await payloadOf(deps.db, d);
    if (body === null) return done(null, "the event no longer exists");
    await checkDestination(e.url, deps.destinations);
    const now = deps.clock.now();
    const timestamp = Math.floor(now.getTime() / 1000);
    const id = `msg_${d.id}`;
    const res = await (deps.fetch ?? fetch)(e.url, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(deps.timeoutMs ?? DELIVERY_TIMEOUT_MS),
      headers: {
        "content-type": "application/json",
        "user-agent": "svc-webhooks/1",
        "webhook-id": id,
        "webhook-timestamp": String(timestamp),
        "webhook-signature": await signatureHeader(signingSecrets(e, now), id, timestamp, body),
      },
      body,
    });
    await res.body?.cancel();
    const ok = res.status >= 200 && res.status < 300;
    return done(res.status, ok ? null : `answered ${res.status}`);
  } catch (err) {
    if (err instanceof DestinationRefused) return done(null, `destination refused: ${err.reason}`);
    const timedOut = err instanceof DOMException && err.name === "TimeoutError";
    return done(null, timedOut ? "no answer within the timeout" : (err as Error).message ?? String(err));
  }
}

/** Disables the endpoint and, for a project's endpoint, records `webhook.disabled` in its feed. */
async function disable(trx: Trx, e: Endpoint, reason: "gone" | "failing", now: Date): Promise<void> {
  await trx.updateTable("webhook_endpoints").set({ enabled: false, disabled_reason: reason, updated_at: now })
    .where("id", "=", e.id).execute();
  if (!e.project_id) return;
  await recordEvent(trx, {
    projectId: e.project_id,
    kind: "webhook.disabled",
    entityType: "webhook",
    entityId: e.id,
    agentId: null,
    data: { webhookId: e.id, url: e.url, reason },
    now,
  });
}

/** What an attempt means for the delivery: done, retried later (backoff with jitter), or given up. */
function nextState(d: Delivery, outcome: Outcome, now: Date) {
  const attempts = d.attempts + 1;
  const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
  const wait = RETRY_SCHEDULE_MS[attempts - 1];
  const status = ok ? "delivered" as const : wait === undefined ? "failed" as const : "pending" as const;
  const next = wait === undefined
    ? now
    : new Date(now.getTime() + Math.round(wait * (1 + Math.random() * 0.2)));
  const entry: WebhookAttempt = { at: now.toISOString(), ...outcome };
  return { ok, attempts, status, next, log: [...d.attempt_log, entry].slice(-ATTEMPT_LOG_MAX) };
}

/** Writes an attempt's outcome, and the endpoint's streak (disabling it on 410 or 3 days failing). */
async function settle(deps: DeliveryDeps, d: Delivery, e: Endpoint, outcome: Outcome): Promise<void> {
  const now = deps.clock.now();
  const s = nextState(d, outcome, now);
  await deps.db.transaction().execute(async (trx) => {
    await trx.updateTable("webhook_deliveries").set({
      status: s.status,
      attempts: s.attempts,
      next_attempt_at: s.next,
      lease_until: null,
      last_status: outcome.status,
      last_error: outcome.error,
      attempt_log: toJson(s.log),
      ...(s.ok ? { delivered_at: now } : {}),
    }).where("id", "=", d.id).execute();
    if (s.ok) {
      if (e.failing_since) {
        await trx.updateTable("webhook_endpoints").set({ failing_since: null }).where("id", "=", e.id)
          .execute();
      }
      return;
    }
    const since = e.failing_since ?? now;
    if (!e.failing_since) {
      await trx.updateTable("webhook_endpoints").set({ failing_since: now }).where("id", "=", e.id).execute();
    }
    if (outcome.status === 410) await disable(trx, e, "gone", now);
    else if (now.getTime() - since.getTime() >= DISABLE_AFTER_FAILING_MS) {
      await disable(trx, e, "failing", now);
    }
  });
}

/**
 * Delivers what is due, at least once, in order per endpoint: leases the head delivery of each endpoint,
 * posts them (different endpoints in parallel), records each outcome; repeats until nothing is due or
 * `max` attempts were made. Safe to run on several instances and on a timer and a request at once.
 */
export async function deliverDueWebhooks(
  deps: DeliveryDeps,
  max = 100,
  stopping: () => boolean = () => false,
): Promise<number> {
  let made = 0;
  while (made < max && !stopping()) {
    const due = await leaseDue(deps, Math.min(20, max - made));
    if (due.length === 0) break;
    markWebhooksActive(deps.db);
    const endpoints = await deps.db.selectFrom("webhook_endpoints").selectAll()
      .where("id", "in", [...new Set(due.map((d) => d.endpoint_id))]).execute();
    const byId = new Map(endpoints.map((e) => [e.id, e]));
    await Promise.all(due.map(async (d) => {
      const e = byId.get(d.endpoint_id);
      if (!e) return;
      await settle(deps, d, e, await attempt(deps, d, e));
    }));
    made += due.length;
  }
  return made;
}
