import { entryDetail, progressEntry, testedEntry } from "./shared.ts";
import type { ExampleTable } from "./types.ts";

/**
 * Request and response examples of the ledger.
 * Recorded from a real run of the service (ids, tokens and times as it issues them; lists cut to three
 * items), then kept by hand. tests/openapi.test.ts validates each against its schema.
 */
export const ledgerExamples: ExampleTable = {
  "POST /ledger": {
    request: {
      type: "DECISION",
      content: "Passwords are checked with scrypt; the hash parameters live in config",
      payload: {
        rationale: "scrypt is in the standard library and memory-hard",
        alternatives: [
          "bcrypt",
        ],
      },
      sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
      ticketId: "WEB-12",
      fileRef: "src/login.ts",
      lineRef: 42,
    },
    responses: {
      201: {
        data: {
          id: "ca17a6a4-df83-4744-a01b-e775639a990d",
          createdAt: "2026-11-26T23:02:02.373Z",
          nextAction: {
            action: "RESUME_WORK",
            message: "Keep going; log PROGRESS at least every 15 minutes",
          },
        },
        meta: {
          callsRemaining: 14908,
        },
      },
      422: {
        error: {
          code: "VALIDATION_ERROR",
          message: 'Cannot find ticket "WEB-99" in this project',
          details: {
            ref: "WEB-99",
            fields: [
              {
                path: "ticketId",
                message: "does not resolve",
                code: "custom",
              },
            ],
            recovery: {
              action: "RESOLVE_TICKET_REF",
              endpoint: "GET /board",
              payloadHint: null,
              "hint":
                'No ticket "WEB-99" in this project: list the board and use a ticket\'s id or its <PREFIX>-<number> key',
            },
          },
        },
      },
      409: {
        error: {
          code: "FENCE_STALE",
          message:
            'Cannot write "src/login.ts" with fence 41: reviewer holds it now under fence 57. Nothing was written',
          details: {
            file: "src/login.ts",
            yourFence: 41,
            currentFence: 57,
            holder: "reviewer",
            recovery: {
              action: "RECLAIM_FILES",
              endpoint: "POST /claim",
              payloadHint: { files: ["src/login.ts"] },
              hint:
                "Your claim on the file ended: claim it again (POST /claim), check your work against what " +
                "changed meanwhile, then retry with the new fence",
            },
          },
        },
      },
    },
  },
  "POST /ledger/batch": {
    request: {
      entries: [
        {
          type: "PROGRESS",
          content: "Built the login form",
          sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
          ticketId: "WEB-12",
        },
        {
          type: "TESTED",
          content: "deno test src/login.test.ts: 6 passed",
          sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
          ticketId: "WEB-12",
        },
      ],
    },
    responses: {
      200: {
        data: {
          ok: true,
          results: [
            {
              ok: true,
              id: "a414ee1d-4261-4a20-8037-010e25f013ba",
              createdAt: "2026-11-26T23:02:02.452Z",
            },
            {
              ok: true,
              id: "cbcc6671-9bc6-4727-b880-95f6d7ba5a65",
              createdAt: "2026-11-26T23:02:02.461Z",
            },
          ],
          succeeded: 2,
          failed: 0,
        },
        meta: {
          callsRemaining: 14904,
        },
      },
      422: {
        error: {
          code: "VALIDATION_ERROR",
          message: "At most 20 entries per batch (got 21)",
          details: {
            count: 21,
            max: 20,
            recovery: {
              action: "SPLIT_BATCH",
              endpoint: "POST /ledger/batch",
              hint: "Send the entries in batches of at most 20",
              payloadHint: {
                entries: [
                  "<up to 20 entries>",
                ],
              },
            },
          },
        },
      },
    },
  },
  "GET /ledger": {
    responses: {
      200: {
        data: {
          entries: [
            { ...testedEntry, ...entryDetail },
            { ...progressEntry, ...entryDetail },
          ],
          pagination: {
            total: 6,
            limit: 2,
            offset: 0,
            hasMore: true,
          },
        },
        meta: {
          callsRemaining: 14901,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: "Unknown ledger type(s): GUESS",
          details: {
            fields: [
              {
                path: "type",
                message: "Unknown: GUESS",
                code: "invalid_value",
              },
            ],
            validTypes: [
              "PROGRESS",
              "DECISION",
              "TESTED",
            ],
          },
        },
      },
    },
  },
};
