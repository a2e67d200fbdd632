import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { AppEnv } from "@/http/env.ts";
import { serviceCtx } from "@/http/env.ts";
import { projectMember } from "@/domain/dashboard/access.ts";
import { decodeEventCursor, encodeEventCursor } from "@/domain/events/cursor.ts";
import { feedHead, headCursor, projectEvents } from "@/domain/events/feed.ts";
import { signedIn } from "./session.ts";
import { redactSecrets } from "@/shared/log-safe.ts";

/** How often an idle stream looks for new events (one indexed read of the feed head). */
export const STREAM_POLL_MS = 500;
/** A stream ends after this long; the browser reconnects with Last-Event-ID (and the session is re-checked). */
export const STREAM_LIFETIME_MS = 120_000;

/**
 * `GET /projects/:projectId/events`: the project's event feed as Server-Sent Events for a signed-in
 * member. Each event's `id` is the feed cursor after it, so a reconnecting browser (which sends
 * `Last-Event-ID`) resumes exactly after the last event it received: nothing missed, nothing repeated.
 * Without either, the stream starts at the current head. The feed lives in the database, so every
 * instance serves the same stream.
 */
export async function eventStream(c: Context<AppEnv>): Promise<Response> {
  const s = await signedIn(c);
  if (!s) return c.text("Sign in first", 401);
  const ctx = serviceCtx(c.get("deps"));
  const member = await projectMember(ctx, s.user, c.req.param("projectId") ?? "");
  if (!member) return c.text("Not found", 404);
  const projectId = member.project.id;
  const resume = c.req.header("Last-Event-ID") || c.req.query("since") || "";
  let cursor = decodeEventCursor(projectId, resume) !== null ? resume : await headCursor(ctx.db, projectId);
  c.header("Cache-Control", "no-store");
  c.header("X-Accel-Buffering", "no");
  return streamSSE(c, async (stream) => {
    let open = true;
    stream.onAbort(() => {
      open = false;
    });
    const until = Date.now() + STREAM_LIFETIME_MS;
    let lastBeat = Date.now();
    await stream.write("retry: 1000\n\n");
    while (open && Date.now() < until) {
      const at = decodeEventCursor(projectId, cursor) ?? 0;
      if (await feedHead(ctx.db, projectId) > at) {
        // Still a member? Checked only when there is something to send, and a removal writes an event
        // itself, so a removed member's open stream ends at once without one more event.
        if (!await projectMember(ctx, s.user, projectId)) break;
        const page = await projectEvents(ctx, projectId, { since: cursor, limit: 100 });
        for (const e of page.events) {
          await stream.writeSSE({
            id: encodeEventCursor(projectId, e.seq),
            data: JSON.stringify({
              seq: e.seq,
              kind: e.kind,
              entityType: e.entityType,
              entityId: e.entityId,
            }),
          });
        }
        cursor = page.nextCursor;
        if (page.hasMore) continue;
      } else if (Date.now() - lastBeat > 15_000) {
        await stream.write(": keep-alive\n\n");
        lastBeat = Date.now();
      }
      await stream.sleep(STREAM_POLL_MS);
    }
  }, async (err, stream) => {
    console.error(`dashboard event stream failed: ${redactSecrets(err.message)}`);
    await stream.close();
  });
}
