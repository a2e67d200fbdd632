import type { Clock } from "@/clock.ts";
import type { Db, DbOrTrx } from "@/db/database.ts";
import type { WebhookEndpointsTable } from "@/db/tables/webhooks.ts";
import { toJson } from "@/db/tables/types.ts";
import type { Selectable } from "kysely";
import { fail } from "@/domain/core/errors.ts";
import { type Page, page } from "@/domain/operator/read.ts";
import { checkDestination, type DestinationPolicy, DestinationRefused } from "./address.ts";
import { markWebhooksActive } from "./active.ts";

/** How long the previous secret keeps signing (beside the new one) after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 3600_000;
/** Secrets are `whsec_` and the base64 of this many random bytes (Standard Webhooks). */
export const SECRET_BYTES = 24;

export interface WebhookCtx {
  db: Db;
  clock: Clock;
  destinations: DestinationPolicy;
}

/** Whose endpoint: a project's, or an organisation's partner endpoint. */
export type Owner = { projectId: string } | { orgId: string };

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string | undefined;
}

type EndpointRow = Selectable<WebhookEndpointsTable>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** An endpoint as the operator API and the dashboard show it (never the secret). */
export function toEndpoint(r: EndpointRow, now: Date) {
  const rotating = r.previous_secret_until && r.previous_secret_until > now ? r.previous_secret_until : null;
  return {
    id: r.id,
    projectId: r.project_id,
    orgId: r.org_id,
    url: r.url,
    events: r.events,
    description: r.description,
    enabled: r.enabled,
    disabledReason: r.disabled_reason,
    failingSince: iso(r.failing_since),
    previousSecretUntil: iso(rotating),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}

export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** 422 when the URL is refused (scheme, or an address of the service's own network). */
async function acceptedUrl(url: string, policy: DestinationPolicy): Promise<string> {
  try {
    await checkDestination(url, policy);
    return url;
  } catch (err) {
    if (!(err instanceof DestinationRefused)) throw err;
    throw fail.unprocessable(`Cannot use "${url}": ${err.reason}`, {
      fields: [{ path: "url", message: err.reason, code: "refused_destination" }],
    }, "WEBHOOK_URL_REFUSED");
  }
}

async function requireOwner(db: DbOrTrx, owner: Owner): Promise<void> {
  if ("projectId" in owner) {
    const row = await db.selectFrom("projects").select("id").where("id", "=", owner.projectId)
      .executeTakeFirst();
    if (!row) throw fail.notFound(`Project "${owner.projectId}" not found`);
  } else {
    const row = await db.selectFrom("organizations").select("id").where("id", "=", owner.orgId)
      .executeTakeFirst();
    if (!row) throw fail.notFound(`Organization "${owner.orgId}" not found`);
  }
}

function ownedBy(owner: Owner) {
  return "projectId" in owner
    ? { column: "project_id" as const, id: owner.projectId }
    : { column: "org_id" as const, id: owner.orgId };
}

/** The endpoint `id` of `owner`, or 404. */
export async function endpointRow(db: DbOrTrx, owner: Owner, id: string): Promise<EndpointRow> {
  const o = ownedBy(owner);
  const row = await db.selectFrom("webhook_endpoints").selectAll().where("id", "=", id)
    .where(o.column, "=", o.id).executeTakeFirst();
  if (!row) throw fail.notFound(`Webhook "${id}" not found`);
  return row;
}

/** Creates an endpoint; answers it with its signing secret, shown this once. */
export async function createEndpoint(ctx: WebhookCtx, owner: Owner, input: EndpointInput) {
  await requireOwner(ctx.db, owner);
  const url = await acceptedUrl(input.url, ctx.destinations);
  const now = ctx.clock.now();
  const secret = newSecret();
  const row = await ctx.db.insertInto("webhook_endpoints").values({
    id: crypto.randomUUID(),
    project_id: "projectId" in owner ? owner.projectId : null,
    org_id: "orgId" in owner ? owner.orgId : null,
    url,
    events: toJson([...new Set(input.events)]),
    description: input.description ?? null,
    secret,
    created_at: now,
    updated_at: now,
  }).returningAll().executeTakeFirstOrThrow();
  markWebhooksActive(ctx.db);
  return { ...toEndpoint(row, now), secret };
}

export async function listEndpoints(ctx: WebhookCtx, owner: Owner, input: Page) {
  await requireOwner(ctx.db, owner);
  const o = ownedBy(owner);
  const q = ctx.db.selectFrom("webhook_endpoints").selectAll().where(o.column, "=", o.id);
  const { rows, nextCursor } = await page(q, "created_at", "id", (r) => r.id, input);
  const now = ctx.clock.now();
  return { items: rows.map((r) => toEndpoint(r, now)), nextCursor };
}

export async function getEndpoint(ctx: WebhookCtx, owner: Owner, id: string) {
  return toEndpoint(await endpointRow(ctx.db, owner, id), ctx.clock.now());
}

/** Changes url, events or description (a new URL is checked as at creation). */
export async function updateEndpoint(
  ctx: WebhookCtx,
  owner: Owner,
  id: string,
  input: { url?: string | undefined; events?: string[] | undefined; description?: string | undefined },
) {
  await endpointRow(ctx.db, owner, id);
  const url = input.url === undefined ? undefined : await acceptedUrl(input.url, ctx.destinations);
  const now = ctx.clock.now();
  const row = await ctx.db.updateTable("webhook_endpoints").set({
    ...(url !== undefined ? { url } : {}),
    ...(input.events !== undefined ? { events: toJson([...new Set(input.events)]) } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    updated_at: now,
  }).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
  return toEndpoint(row, now);
}

/**
 * Turns an endpoint on or off. Events raised while it is off queue nothing for it; deliveries queued
 * before stay queued and go out once it is on again. Turning it on clears the failure streak.
 */
export async function setEndpointEnabled(ctx: WebhookCtx, owner: Owner, id: string, enabled: boolean) {
  await endpointRow(ctx.db, owner, id);
  const now = ctx.clock.now();
  return toEndpoint(
    await ctx.db.transaction().execute(async (trx) => {
      const row = await trx.updateTable("webhook_endpoints").set({
        enabled,
        disabled_reason: enabled ? null : "operator",
        ...(enabled ? { failing_since: null } : {}),
        updated_at: now,
      }).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
      if (enabled) {
        // Deliveries that were waiting out a long backoff are due again now.
        await trx.updateTable("webhook_deliveries").set({ next_attempt_at: now })
          .where("endpoint_id", "=", id).where("status", "=", "pending").execute();
      }
      return row;
    }),
    now,
  );
}

export async function deleteEndpoint(ctx: WebhookCtx, owner: Owner, id: string) {
  await endpointRow(ctx.db, owner, id);
  await ctx.db.deleteFrom("webhook_endpoints").where("id", "=", id).execute();
  return { id, deleted: true };
}

/**
 * A new signing secret, shown this once. The previous one keeps signing beside it for
 * `SECRET_OVERLAP_MS` (each delivery then carries both signatures), so receivers can switch over.
 */
export async function rotateSecret(ctx: WebhookCtx, owner: Owner, id: string) {
  const current = await endpointRow(ctx.db, owner, id);
  const now = ctx.clock.now();
  const secret = newSecret();
  const row = await ctx.db.updateTable("webhook_endpoints").set({
    secret,
    previous_secret: current.secret,
    previous_secret_until: new Date(now.getTime() + SECRET_OVERLAP_MS),
    updated_at: now,
  }).where("id", "=", id).returningAll().executeTakeFirstOrThrow();
  return { ...toEndpoint(row, now), secret };
}
