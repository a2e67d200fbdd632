import type { OpenAPIHono, z } from "@hono/zod-openapi";
import {
  type ContextDeltaData,
  ContextMoreQuery,
  ContextMoreResponse,
  ContextQuery,
  ContextResponse,
  isContextCursor,
  MetaContext,
} from "@/contracts/context.ts";
import type { LedgerType } from "@/db/tables/work.ts";
import { SESSION_MAX_AGE_MS, SESSION_REFRESH_WINDOW_MS } from "@/domain/auth/token-policy.ts";
import { COMPACT_BRIEF_CHARS, FULL_BRIEF_CHARS } from "@/domain/context/brief.ts";
import { getContext } from "@/domain/context/build.ts";
import { COMPACT_LEDGER_ENTRIES, LEDGER_CEILING_MAX, THREAD_CEILING_MAX } from "@/domain/context/params.ts";
import { contextMore } from "@/domain/context/more.ts";
import type { AppEnv } from "@/http/env.ts";
import { type JsonText, ok, okSerialized } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";
import { errorResponses } from "@/contracts/common.ts";

export const contextRoute = defineRoute({
  method: "get",
  path: "/context",
  tags: ["Context and events"],
  summary: "Everything an agent needs to resume work, in one call",
  description: [
    "Any valid token, no scope; cost 3. Call it first, and again whenever you lose track.",
    "\n\nLimits (design, CTX-006): `ledger_limit` 0 to the project ceiling, `thread_limit` 1 to the project",
    `ceiling. The ceilings are ${LEDGER_CEILING_MAX} entries and ${THREAD_CEILING_MAX} threads unless the project settings lower them`,
    "(`contextLedgerCeiling`, `contextThreadCeiling`). A value outside its range is refused with 400",
    "VALIDATION_ERROR naming the parameter (`details.fields`, `details.ceiling`); it is never clamped.",
    "`thread_status` defaults to `open`; values other than open, closed, all are ignored.",
    `\n\nCompact mode (\`compact=true\`): \`ledger\` holds the ${COMPACT_LEDGER_ENTRIES} newest entries (fewer when ` +
    "`ledger_limit` is",
    "lower; 0 suppresses it) plus the CONTEXT entries pinned to your active ticket that no later CONTEXT entry",
    `on the same file or thread superseded; \`brief.content\` is cut to ${COMPACT_BRIEF_CHARS} characters (full mode: ${
      FULL_BRIEF_CHARS.toLocaleString("en-US")
    }, with`,
    "`briefTruncated` and `briefFetchUrl` when cut); `openClaims` becomes `{ count, ticketIds }`, `threads`",
    "`{ count, ids }`, `pendingReviews` `{ count, ticketIds }`; every `documents` item has `contentText: null`.",
    "\n\nSide effects: the notifications returned in `updates` are marked read, and the call records what you",
    "have seen (brief version, skill version) for `updates` and `skillStale` next time.",
    "\n\nmeta: `responseBytes` is the UTF-8 size of the serialized `data`; `refreshedToken` carries a",
    `replacement session token for the same session when yours is within ${
      SESSION_REFRESH_WINDOW_MS / 60_000
    } minutes ` +
    `of its ${SESSION_MAX_AGE_MS / 86_400_000}-day limit`,
    "(switch to it); `context` as on every call (schema MetaContext: unreadNotifications,",
    "expiringClaims, expiredClaims, ledgerStale; present only when one of them is non-zero).",
    "\n\nDelta (extension, issue 27): every answer carries `contextCursor`; `since=<contextCursor>` (or",
    "`delta=<contextCursor>`) answers with only the sections that changed since that answer (compared by per-section fingerprints), the new",
    "`contextCursor` and `unchangedSections` (schema ContextDelta), in compact and full mode alike.",
    "\n\nErrors: 400 VALIDATION_ERROR (a parameter out of range, an unparseable `since`, an unknown",
    "`ledger_type`); 401 UNAUTHORIZED; 409 IDENTITY_MISMATCH when `X-Svc-Platform` or `expectedPlatform`",
    "differs (case-insensitively) from the platform recorded for the token, with `details.tokenPlatform`,",
    "`details.requestedPlatform`, `details.tokenAgentName`; 429 RATE_LIMITED.",
  ].join(" "),
  request: { query: ContextQuery },
  responses: {
    200: {
      description: "The caller's context",
      content: { "application/json": { schema: ContextResponse } },
    },
    ...errorResponses(409),
  },
}, { cost: 3 });

export const contextMoreRoute = defineRoute({
  method: "get",
  path: "/context/more",
  tags: ["Context and events"],
  summary: "The next rows of a context section",
  description: [
    "Any valid token, no scope; cost 1. Response `{ section, rows, hasMore, nextCursor }`; rows newest first;",
    "`nextCursor` is null when nothing is left. An invalid cursor (or one of another section) is not an",
    "error: the listing restarts from the beginning.",
    "\n\n`ledger`: entries newest first; without a cursor agent entries without audit ones (the context",
    "defaults); a `ledgerCursor` from GET /context keeps the filters of that call. `threads`: every status,",
    "newest first. `reviews`: tickets in a review status not assigned to you, newest waiting first; the",
    "`pendingReviewsCursor` of GET /context lists exactly the reviews it did not show. `brief`: one row",
    "`{ version, chunk, offset, totalBytes, hasMore, nextCursor }` of at most `limit` KB (UTF-8 bytes, cut at",
    "a character boundary); following the cursors and concatenating the chunks reproduces the serialized",
    "brief of the version the first chunk had, even if the brief changes meanwhile.",
    "\n\nErrors: 400 VALIDATION_ERROR (missing or unknown section, limit outside 1..200); 401 UNAUTHORIZED.",
  ].join(" "),
  request: { query: ContextMoreQuery },
  responses: {
    200: {
      description: "A page of the section",
      content: { "application/json": { schema: ContextMoreResponse } },
    },
  },
}, { cost: 1 });

function list(value: string | undefined): string[] {
  return value ? value.split(",").map((v) => v.trim()).filter((v) => v.length > 0) : [];
}

export function registerContext(api: OpenAPIHono<AppEnv>): void {
  // meta.context is typed loosely in the shared Meta schema; its documented shape is this component.
  api.openAPIRegistry.register("MetaContext", MetaContext);
  handle(api, contextRoute, async ({ c, ctx, query }) => {
    // `since` carries either the spec's ISO time or (extension) a contextCursor asking for the delta.
    const sinceCursor = query.since !== undefined && isContextCursor(query.since) ? query.since : undefined;
    const { data, dataJson, metaContext, refreshedToken } = await getContext(ctx, {
      compact: query.compact ?? false,
      ledgerLimit: query.ledger_limit,
      threadLimit: query.thread_limit,
      threadStatus: query.thread_status,
      updatesLimit: query.updates_limit,
      since: sinceCursor === undefined ? query.since : undefined,
      includeSystemLedger: query.include_system_ledger ?? false,
      includeAudit: query.include_audit ?? false,
      ledgerSource: query.ledger_source,
      ledgerTypes: list(query.ledger_type) as LedgerType[],
      ledgerSessionId: query.ledger_sessionId,
      ledgerFileRef: query.ledger_fileRef,
      ledgerSubAgent: query.ledger_subAgent,
      include: list(query.include),
      expectedPlatform: query.expectedPlatform,
      headerPlatform: c.req.header("x-svc-platform"),
      delta: query.delta ?? sinceCursor,
    });
    c.set("metaContext", metaContext);
    const responseBytes = new TextEncoder().encode(dataJson).length;
    return okSerialized(c, dataJson as JsonText<typeof data | z.infer<typeof ContextDeltaData>>, {
      responseBytes,
      ...(refreshedToken ? { refreshedToken } : {}),
    });
  });

  handle(api, contextMoreRoute, async ({ c, ctx, query }) => {
    return ok(
      c,
      await contextMore(ctx, { section: query.section, cursor: query.cursor, limit: query.limit }),
    );
  });
}
