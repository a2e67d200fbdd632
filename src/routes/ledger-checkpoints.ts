import type { OpenAPIHono } from "@hono/zod-openapi";
import { CheckpointsQuery, CheckpointsResponse } from "@/contracts/ledger-checkpoints.ts";
import { CHECKPOINT_EVERY_ENTRIES, CHECKPOINT_EVERY_MINUTES } from "@/domain/audit/chain.ts";
import { listCheckpoints } from "@/domain/audit/checkpoints.ts";
import type { AppEnv } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";

export const ledgerCheckpointsRoute = defineRoute({
  method: "get",
  path: "/ledger/checkpoints",
  tags: ["Ledger"],
  summary: "List the ledger's signed checkpoints",
  description: [
    "Extension of the spec. Scope read:ledger; cost 1. The project's ledger is hash-chained: in ledger `seq`",
    "order, each entry's hash is hex(SHA-256(previous hash + canonical JSON of the entry)), the first entry's",
    "previous hash 64 zeros; the canonical JSON lists the entry's fields in a fixed order (id, seq,",
    "projectId, type, content, source, audit, agentId, subAgentName, sessionId, ticketId, threadId, fileRef,",
    "lineRef, labels, payload, severity, tokensUsed, activity, envHealth, blockedByFile, createdAt; nested",
    "keys sorted). A background job computes it (writes never wait on it) and signs a checkpoint",
    `\`{ projectId, seq, hash, signedAt }\` every ${CHECKPOINT_EVERY_ENTRIES} entries, or once the oldest`,
    `entry not yet covered is ${CHECKPOINT_EVERY_MINUTES} minutes old, whichever comes first, as a compact JWS`,
    "with the service's current signing key (verify it with GET /api/oauth/jwks). A checkpoint that is due is",
    "signed before this answer. `deno task cli ledger verify --project ID` recomputes the chain and checks",
    "every signature. Errors: 400 VALIDATION_ERROR (afterSeq or limit out of range); 401 UNAUTHORIZED;",
    "403 FORBIDDEN (scope read:ledger missing).",
  ].join(" "),
  request: { query: CheckpointsQuery },
  responses: {
    200: {
      description: "Checkpoints, oldest first",
      content: { "application/json": { schema: CheckpointsResponse } },
    },
  },
}, { scope: "read:ledger", cost: 1 });

export function registerLedgerCheckpoints(api: OpenAPIHono<AppEnv>): void {
  handle(api, ledgerCheckpointsRoute, async ({ c, ctx, query }) => ok(c, await listCheckpoints(ctx, query)));
}
