/** Examples of the ledger's signed checkpoints (GET /ledger/checkpoints). */
import type { ExampleTable } from "./types.ts";

export const ledgerCheckpointExamples: ExampleTable = {
  "GET /ledger/checkpoints": {
    responses: {
      200: {
        data: {
          checkpoints: [
            {
              seq: 4127,
              hash: "5d0b3c8e2f9a41d6b7c0e8f1a2d3c4b5e6f708192a3b4c5d6e7f8091a2b3c4d5",
              signedAt: "2026-11-26T23:12:00.000Z",
              jws: "eyJhbGciOiJSUzI1NiIsImtpZCI6IjNmYUJjIiwidHlwIjoibGVkZ2VyLWNoZWNrcG9pbnQrandzIn0." +
                "eyJwcm9qZWN0SWQiOiIuLi4iLCJzZXEiOjQxMjd9.c2lnbmF0dXJl",
            },
          ],
          hasMore: false,
        },
        meta: { callsRemaining: 14872 },
      },
      403: {
        error: {
          code: "FORBIDDEN",
          message: 'Cannot call GET /api/ledger/checkpoints: missing scope "read:ledger"',
          details: {
            requiredScope: "read:ledger",
            recovery: {
              action: "REPAIR_OR_REFRESH",
              endpoint: "POST /pair/connect",
              payloadHint: { code: "<pairing code>" },
              hint: 'Pair again with a role whose token carries "read:ledger", or use a key that has it',
            },
          },
        },
      },
    },
  },
};
