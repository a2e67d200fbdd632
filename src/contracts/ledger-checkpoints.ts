import { z } from "@hono/zod-openapi";
import { envelope } from "./common.ts";

export const CHECKPOINTS_DEFAULT_LIMIT = 100;
export const CHECKPOINTS_MAX_LIMIT = 500;

export const CheckpointsQuery = z.object({
  afterSeq: z.coerce.number().int().min(0).optional().openapi({
    description: "Only checkpoints whose `seq` is greater (page on with the last `seq` you got)",
    example: 100,
  }),
  limit: z.coerce.number().int().min(1).max(CHECKPOINTS_MAX_LIMIT).optional().openapi({
    description: `Checkpoints per page, 1 to ${CHECKPOINTS_MAX_LIMIT}, default ${CHECKPOINTS_DEFAULT_LIMIT}`,
  }),
}).openapi("LedgerCheckpointsQuery");

export const CheckpointSchema = z.object({
  seq: z.number().int().openapi({ description: "The ledger `seq` of the last entry the checkpoint covers" }),
  hash: z.string().openapi({
    description: "The chain hash (hex SHA-256) at that entry",
    example: "9f2c0a6f8e4b1d7c3a5e9b0f2d4c6a8e1b3d5f7a9c0e2b4d6f8a1c3e5b7d9f0a",
  }),
  signedAt: z.string().openapi({ description: "When it was signed (ISO 8601)" }),
  jws: z.string().openapi({
    description:
      "Compact JWS (RS256, `kid` of a key of GET /api/oauth/jwks, `typ` `ledger-checkpoint+jws`) " +
      "over `{ projectId, seq, hash, signedAt }`",
  }),
}).openapi("LedgerCheckpoint");

export const CheckpointsData = z.object({
  checkpoints: z.array(CheckpointSchema).openapi({ description: "Oldest first" }),
  hasMore: z.boolean().openapi({ description: "True when the page is full: ask again with `afterSeq`" }),
}).openapi("LedgerCheckpoints");

export const CheckpointsResponse = envelope(CheckpointsData);
