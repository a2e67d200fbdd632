import { z } from "@hono/zod-openapi";
import { EventsQuery } from "./events.ts";

/** Open streams one agent may hold on one instance (`GET /events/stream`); one more is refused. */
export const STREAM_MAX_PER_AGENT = 3;
/** Seconds between two heartbeat comments of an idle stream. */
export const STREAM_HEARTBEAT_SECONDS = 15;
/** Seconds between two checks that an open stream's token still admits its caller. */
export const STREAM_RECHECK_SECONDS = 30;
/** Seconds a stream stays open before the service ends it (the client resumes with Last-Event-ID). */
export const STREAM_LIFETIME_SECONDS = 600;

export const EventStreamQuery = EventsQuery.pick({ since: true, kinds: true }).openapi("EventStreamQuery");

export const EventStreamHeaders = z.object({
  "last-event-id": z.string().max(200).optional().openapi({
    description: "The `id` of the last event received (a feed cursor), sent by EventSource on reconnect; " +
      "it wins over `since`",
    example: "ZXYxLjEyMzQ1Njc4LjQy",
  }),
});

export const EventStreamBody = z.string().openapi({
  description: "Server-Sent Events. Each event: `id: <cursor>` (the feed cursor after it, usable as " +
    "`since` of GET /events or as Last-Event-ID) and one `data:` line, the event exactly as GET /events " +
    `shows it (JSON). Lines starting with \`:\` are comments (a heartbeat every ${STREAM_HEARTBEAT_SECONDS} s).`,
  example: 'retry: 1000\n\nid: ZXYxLjEyMzQ1Njc4LjQz\ndata: {"seq":43,"kind":"ticket.moved","entityType":' +
    '"ticket","entityId":"7d6c...","agentId":"a1b2...","data":{"from":"todo","to":"in_progress"},' +
    '"createdAt":"2026-01-01T00:00:00.000Z"}\n\n: heartbeat\n\n',
});
