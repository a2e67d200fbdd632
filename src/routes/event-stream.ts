import type { OpenAPIHono } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import {
  EventStreamBody,
  EventStreamHeaders,
  EventStreamQuery,
  STREAM_HEARTBEAT_SECONDS,
  STREAM_LIFETIME_SECONDS,
  STREAM_MAX_PER_AGENT,
  STREAM_RECHECK_SECONDS,
} from "@/contracts/event-stream.ts";
import { credentialLive } from "@/domain/auth/authenticate.ts";
import { DomainError, recovery } from "@/domain/core/errors.ts";
import { decodeEventCursor, encodeEventCursor } from "@/domain/events/cursor.ts";
import { feedHead, headCursor, projectEvents } from "@/domain/events/feed.ts";
import type { AppEnv } from "@/http/env.ts";
import { streamed } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";
import { redactSecrets } from "@/shared/log-safe.ts";

/**
 * Timings of the stream. Tests shorten them; the documented values are the constants of
 * contracts/event-stream.ts.
 */
export const streamTuning = {
  /** How often an idle stream reads the feed head (one indexed read; works across instances). */
  pollMs: 300,
  heartbeatMs: STREAM_HEARTBEAT_SECONDS * 1000,
  lifetimeMs: STREAM_LIFETIME_SECONDS * 1000,
  /** How often an open stream checks that its token still admits the caller (revoked: the stream ends). */
  recheckMs: STREAM_RECHECK_SECONDS * 1000,
};

/** Open streams of this instance: per agent (the limit), and every one (ended on shutdown). */
const openPerAgent = new Map<string, number>();
const openStreams = new Set<AbortController>();

/**
 * Ends every open stream of this instance (graceful shutdown): each stops after its current write and
 * closes, so `server.shutdown()` does not wait on it; clients resume elsewhere with Last-Event-ID.
 */
export function closeEventStreams(): void {
  for (const stop of openStreams) stop.abort();
}

export const eventStreamRoute = defineRoute({
  method: "get",
  path: "/events/stream",
  tags: ["Context and events"],
  summary: "Stream the project's event feed (Server-Sent Events)",
  description: [
    "Extension of the spec (our design): the feed of GET /events pushed as Server-Sent Events, with the same",
    "authentication and scopes (any valid token, no scope; cost 1 at opening). Each event is sent once, in",
    "order, as `id: <cursor>` and `data: <the event exactly as GET /events shows it>`; the `id` is the feed",
    "cursor after that event. Without `Last-Event-ID` or `since` the stream starts at the end of the feed",
    "(new events only); with either (a cursor of GET /events, or `since` as an ISO 8601 time) it resumes",
    "right after it, so a client that reconnects with the last `id` it got misses nothing and sees nothing",
    "twice. `kinds` filters as in GET /events. An idle stream sends a comment line (`: heartbeat`) every",
    `${STREAM_HEARTBEAT_SECONDS} seconds. The token is checked again every ${STREAM_RECHECK_SECONDS} seconds (revoked, expired or`,
    `idle: the stream ends). The service ends a stream after ${STREAM_LIFETIME_SECONDS} seconds and at shutdown (the`,
    "client reconnects with Last-Event-ID). The feed is read from the database, so any instance serves the",
    "same stream.",
    `\n\nLimit: ${STREAM_MAX_PER_AGENT} open streams per agent (sub-agents count as their agent) on one instance;`,
    "one more is refused with 429 TOO_MANY_STREAMS (an extension code; `details.limit`, `details.open`,",
    "recovery RETRY after closing a stream, `Retry-After` set).",
    "\n\nErrors: 400 VALIDATION_ERROR (as GET /events: a `since` or Last-Event-ID that is not a cursor of",
    "this project nor an ISO 8601 time, recovery RESTART_PAGINATION); 401 UNAUTHORIZED; 429 TOO_MANY_STREAMS",
    "or RATE_LIMITED.",
  ].join(" "),
  request: { query: EventStreamQuery, headers: EventStreamHeaders },
  responses: {
    200: {
      description: "The event stream (text/event-stream), open until the client leaves",
      content: { "text/event-stream": { schema: EventStreamBody } },
    },
  },
}, { cost: 1 });

function tooManyStreams(open: number): DomainError {
  return new DomainError(
    "limited",
    "TOO_MANY_STREAMS",
    `Cannot open another event stream: this agent already has ${open} open (limit ${STREAM_MAX_PER_AGENT})`,
    {
      limit: STREAM_MAX_PER_AGENT,
      open,
      recovery: recovery("RETRY", "GET /events/stream", "Close one of your open streams, then open this one"),
    },
    { retryAfterSeconds: 5 },
  );
}

export function registerEventStream(api: OpenAPIHono<AppEnv>): void {
  handle(api, eventStreamRoute, async ({ c, ctx, query }) => {
    const projectId = ctx.actor.projectId;
    const kinds = query.kinds?.split(",").map((k) => k.trim()).filter((k) => k.length > 0);
    const resume = c.req.header("last-event-id") || query.since || "";
    // A bad `since` is refused here, as a normal 400, before the stream starts.
    let cursor = resume === "" ? await headCursor(ctx.db, projectId) : (await projectEvents(ctx, projectId, {
      since: resume,
      limit: 1,
    }).then(() => resume));
    if (decodeEventCursor(projectId, cursor) === null) {
      // An ISO time: the cursor just before the first event after it.
      const page = await projectEvents(ctx, projectId, { since: cursor, limit: 1 });
      const first = page.events[0];
      cursor = first ? encodeEventCursor(projectId, first.seq - 1) : page.nextCursor;
    }
    const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1] ?? "";
    const agent = ctx.actor.agentId;
    const open = openPerAgent.get(agent) ?? 0;
    if (open >= STREAM_MAX_PER_AGENT) throw tooManyStreams(open);
    openPerAgent.set(agent, open + 1);
    const stop = new AbortController();
    openStreams.add(stop);
    const release = () => {
      if (!openStreams.delete(stop)) return;
      const left = (openPerAgent.get(agent) ?? 1) - 1;
      if (left > 0) openPerAgent.set(agent, left);
      else openPerAgent.delete(agent);
    };
    c.header("Cache-Control", "no-store");
    c.header("X-Accel-Buffering", "no");
    return streamed(streamSSE(c, async (stream) => {
      stream.onAbort(() => stop.abort());
      try {
        const until = Date.now() + streamTuning.lifetimeMs;
        let lastWrite = Date.now();
        let lastCheck = Date.now();
        await stream.write("retry: 1000\n\n");
        while (!stop.signal.aborted && Date.now() < until) {
          if (Date.now() - lastCheck >= streamTuning.recheckMs) {
            if (!await credentialLive(ctx, bearer)) break;
            lastCheck = Date.now();
          }
          const at = decodeEventCursor(projectId, cursor) ?? 0;
          if (await feedHead(ctx.db, projectId) > at) {
            const page = await projectEvents(ctx, projectId, { since: cursor, limit: 100, kinds });
            for (const e of page.events) {
              if (stop.signal.aborted) break;
              await stream.writeSSE({ id: encodeEventCursor(projectId, e.seq), data: JSON.stringify(e) });
              cursor = encodeEventCursor(projectId, e.seq);
              lastWrite = Date.now();
            }
            if (stop.signal.aborted) break;
            cursor = page.nextCursor;
            if (page.hasMore) continue;
          } else if (Date.now() - lastWrite >= streamTuning.heartbeatMs) {
            await stream.write(": heartbeat\n\n");
            lastWrite = Date.now();
          }
          await stream.sleep(streamTuning.pollMs);
        }
      } finally {
        release();
      }
    }, async (err, stream) => {
      release();
      console.error(`event stream failed: ${redactSecrets(err.message)}`);
      await stream.close();
    }));
  });
}
