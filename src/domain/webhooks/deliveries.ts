import type { Selectable } from "kysely";
import type { WebhookDeliveriesTable } from "@/db/tables/webhooks.ts";
import { fail } from "@/domain/core/errors.ts";
import { type Page, page } from "@/domain/operator/read.ts";
import { endpointRow, type Owner, type WebhookCtx } from "./endpoints.ts";
import { kickWebhookDelivery } from "./run.ts";

type DeliveryRow = Selectable<WebhookDeliveriesTable>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A delivery with its attempts (newest last) and their response codes. */
export function toDelivery(r: DeliveryRow) {
  return {
    id: r.id,
    webhookId: r.endpoint_id,
    webhookMessageId: `msg_${r.id}`,
    projectId: r.project_id,
    seq: Number(r.seq),
    kind: r.kind,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.status === "pending" ? r.next_attempt_at.toISOString() : null,
    lastStatus: r.last_status,
    lastError: r.last_error,
    attemptLog: r.attempt_log,
    deliveredAt: iso(r.delivered_at),
    createdAt: r.created_at.toISOString(),
  };
}

/** The endpoint's deliveries, newest first. Reading them also runs what is due (in the background). */
export async function listDeliveries(ctx: WebhookCtx, owner: Owner, webhookId: string, input: Page) {
  await endpointRow(ctx.db, owner, webhookId);
  kickWebhookDelivery(ctx);
  const q = ctx.db.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "=", webhookId);
  const { rows, nextCursor } = await page(q, "created_at", "id", (r) => r.id, input);
  return { items: rows.map(toDelivery), nextCursor };
}

/**
 * Sends a delivery again (by hand): it is queued as new, with the same `webhook-id`, ahead of the
 * endpoint's later deliveries, its attempt log kept.
 */
export async function redeliver(ctx: WebhookCtx, owner: Owner, webhookId: string, deliveryId: string) {
  await endpointRow(ctx.db, owner, webhookId);
  const row = await ctx.db.updateTable("webhook_deliveries").set({
    status: "pending",
    attempts: 0,
    next_attempt_at: ctx.clock.now(),
    lease_until: null,
    delivered_at: null,
  }).where("id", "=", deliveryId).where("endpoint_id", "=", webhookId).returningAll().executeTakeFirst();
  if (!row) throw fail.notFound(`Delivery "${deliveryId}" not found`);
  kickWebhookDelivery(ctx);
  return toDelivery(row);
}
