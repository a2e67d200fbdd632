import type { OpenAPIHono } from "@hono/zod-openapi";
import { EventsQuery, EventsResponse, WebhookDelivery } from "@/contracts/events.ts";
import { EVENTS_POLL_INTERVAL_SECONDS, listEvents } from "@/domain/events/feed.ts";
import type { AppEnv } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";

export const eventsRoute = defineRoute({
  method: "get",
  path: "/events",
  tags: ["Context and events"],
  summary: "Poll the project's event feed",
  description: [
    "Any valid token, no scope; cost 1. The feed of the caller's project, oldest first. Poll with `since` set",
    "to the previous `nextCursor` (start from GET /context `pollingHint.cursor`). Guarantee: a client that always",
    "passes back the `nextCursor` it got sees every event exactly once, in order, even while other agents write:",
    "sequence numbers are assigned under a per-project row lock, so they follow commit order without gaps, and a",
    "page never reaches past the last committed event. When `hasMore` is true call again at once; otherwise wait",
    `about ${EVENTS_POLL_INTERVAL_SECONDS} seconds. Events are kept for the life of the project, so a cursor never expires.`,
    "\n\nEvent kinds are `<entity>.<verb>`. Recorded today: tickets (`ticket.created`, `ticket.updated`,",
    "`ticket.moved`, `ticket.acknowledged`, `ticket.deleted`, `artifact.updated`, `qa_run.created`, `qa_run.completed`), claims",
    "(`claim.acquired`, `claim.released`), the ledger (`ledger.appended` with `data.type`; read the entry with",
    "GET /ledger), threads (`thread.opened`, `thread.replied`, `thread.updated`, `thread.closed`,",
    "`thread.reopened`), sprints (`sprint.created`, `sprint.updated`, `sprint.released`), the brief",
    "(`brief.updated`), handoffs (`handoff.completed`), sessions (`session.opened`, `session.updated`,",
    "`session.reported`, `session.completed`, `session.canceled`, `session.refreshed`, `session.token_replaced`,",
    "`activity.posted`) and agents (`subagent.spawned`, `subagent.deleted`, `agent.offline`, `agent.revoked`,",
    "`pairing_code.issued`). Extensions of the spec's list, written by the operator API (design): `api_key.revoked`",
    "(`data.keyAgentId`, `name`) and `member.removed` (entity a user id, `data.role`). `agent.revoked` carries",
    "`data.via` (`dashboard` or `operator`); a `session.canceled` of an operator has `data.reason`",
    "`agent_revoked` or `ended_by_operator`; both have a null `agentId` when the operator acted. New kinds may",
    "appear: ignore the ones you do not know.",
    "\n\nRelease requests (extension, issue 24): `claim.release_requested` (`agentId` the asker) and",
    "`claim.release_answered` (`agentId` the holder) with `data { requestId, files, holder, asker }`, the answer's",
    "also `answer` (`release` or `decline`) and, for `release`, `releasedFiles`.",
    "\n\n`claim.released` data: `claimIds`, `files` and either `ticketId` (a release) or `reason: expired` (a",
    "claim that swept away dead claims of its files: expired, or past their grace period). Any release that",
    "frees several owners' claims (a sweep; a ticket approved, or moved to done or cancelled, frees every claim on",
    "it) records one `claim.released` per owner, with `agentId` that owner (not the caller) and only that owner's",
    "claim ids and files, so a consumer tracking holders by `agentId` stays right; an agent's claims and its",
    "sub-agents' are one owner (one event). A release (not a sweep) also writes a `CONTEXT` entry per holder",
    "(agent or sub-agent) of actively held files, attributed to that holder and listing only its files.",
    "\n\nClaim wait queue (extension of the spec's kinds): `claim.granted` (the service granted a waiting",
    "request: the claim exists, recorded after its `claim.acquired`) and `claim.wait_expired` (a request not",
    "granted by its expiresAt), both with `data { requestId, files, agentId }`, agentId the waiter's.",
    "\n\nWebhooks: project admins (dashboard) and operators (`/admin/projects/{id}/webhooks`) register endpoints",
    "that receive these events as Standard Webhooks deliveries (the `eventDelivery` webhook of this document:",
    "`{ type, timestamp, data }`, data the event as shown here plus `projectId`, and `partnerManagedSessionId` when",
    "the acting agent gave one; partner endpoints of an organisation, `/admin/orgs/{id}/webhooks`, receive the events",
    "of its agents that gave one). Extension kind: `webhook.disabled` (entity the endpoint, `data.webhookId`, `url`,",
    "`reason` `gone` or `failing`), recorded when a `410` or 3 days of failures disable an endpoint.",
    "\n\nErrors: 400 VALIDATION_ERROR (limit out of 1..500; `since` neither a cursor of this project nor an ISO",
    "8601 time, or a cursor ahead of the feed: recovery RESTART_PAGINATION); 401 UNAUTHORIZED.",
  ].join(" "),
  request: { query: EventsQuery },
  responses: {
    200: { description: "A page of events", content: { "application/json": { schema: EventsResponse } } },
  },
}, { cost: 1 });

export function registerEvents(api: OpenAPIHono<AppEnv>): void {
  // Published as an OpenAPI 3.1 webhook for webhook and partner consumers (CTX-055, issue 26).
  api.openAPIRegistry.registerWebhook({
    method: "post",
    path: "eventDelivery",
    operationId: "eventDelivery",
    summary: "Event delivery to a webhook endpoint (Standard Webhooks)",
    description:
      "One event per POST. Headers: `webhook-id` (stable per event and endpoint: the idempotency " +
      "key), `webhook-timestamp` (the service clock, seconds), `webhook-signature` (`v1,<base64 HMAC-SHA256 of " +
      "id.timestamp.body>` keyed with the endpoint's `whsec_` secret; two, space-separated, for 24 hours after a " +
      "rotation). Verify with any Standard Webhooks library. Answer 2xx within 10 s; anything else is retried " +
      "(5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, +0 to 20 % jitter), in order per endpoint; `410` disables the " +
      "endpoint.",
    request: { body: { required: true, content: { "application/json": { schema: WebhookDelivery } } } },
    responses: { 200: { description: "Accepted by the partner" } },
    security: [],
  });
  handle(api, eventsRoute, async ({ c, ctx, query }) => {
    const kinds = query.kinds?.split(",").map((k) => k.trim()).filter((k) => k.length > 0);
    const page = await listEvents(ctx, { since: query.since, limit: query.limit, kinds });
    return ok(c, { events: page.events, nextCursor: page.nextCursor, hasMore: page.hasMore });
  });
}
