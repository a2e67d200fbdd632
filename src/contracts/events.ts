import { z } from "@hono/zod-openapi";
import { envelope } from "./common.ts";

export const EVENTS_DEFAULT_LIMIT = 100;
export const EVENTS_MAX_LIMIT = 500;

export const EventsQuery = z.object({
  since: z.string().max(200).optional().openapi({
    description:
      "A `nextCursor` (or context `pollingHint.cursor`) passed back unchanged, or an ISO 8601 time " +
      "(start after the last event recorded at or before it). Omitted: from the first event of the project.",
    example: "ZXYxLjEyMzQ1Njc4LjQy",
  }),
  limit: z.coerce.number().int().min(1).max(EVENTS_MAX_LIMIT).optional().openapi({
    description: `Events per page, 1 to ${EVENTS_MAX_LIMIT}, default ${EVENTS_DEFAULT_LIMIT}`,
  }),
  kinds: z.string().max(1000).optional().openapi({
    description:
      "Comma list of kinds to keep: exact (`ticket.moved`) or prefixes ending in a dot (`ticket.`). " +
      "The cursor still advances over the events left out.",
    example: "ticket.,claim.acquired",
  }),
}).openapi("EventsQuery");

export const EventSchema = z.object({
  seq: z.number().int().openapi({ description: "Per-project sequence, gap-free, in commit order" }),
  kind: z.string().openapi({ example: "ticket.moved", description: "`<entity>.<verb>`" }),
  entityType: z.string().openapi({ example: "ticket" }),
  entityId: z.string().nullable(),
  agentId: z.string().nullable().openapi({ description: "The acting agent, null for the service" }),
  data: z.record(z.string(), z.unknown()).openapi({ description: "Kind-specific summary; never secrets" }),
  createdAt: z.string(),
}).openapi("Event");

export const EventsData = z.object({
  events: z.array(EventSchema).openapi({ description: "Oldest first" }),
  nextCursor: z.string().openapi({
    description: "Always present: poll again with `since=<nextCursor>`. It moves past every event returned " +
      "(and past filtered-out ones), never past one that is not yet visible.",
  }),
  hasMore: z.boolean().openapi({ description: "True when the page was full: call again at once" }),
}).openapi("EventsPage");

export const EventsResponse = envelope(EventsData);

/** The body of a webhook delivery (Standard Webhooks; issue 26). */
export const WebhookDelivery = z.object({
  type: z.string().openapi({ description: "The event's kind", example: "ticket.moved" }),
  timestamp: z.string().openapi({ description: "When the event was recorded (its `createdAt`)" }),
  data: EventSchema.extend({
    projectId: z.string(),
    partnerManagedSessionId: z.string().optional().openapi({
      description: "The value the acting agent gave at POST /pair/connect, when it gave one",
    }),
  }).openapi({ description: "The event exactly as GET /events shows it, plus `projectId`" }),
}).openapi("WebhookDelivery");
