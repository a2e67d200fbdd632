import type { ExampleTable } from "./types.ts";

/**
 * Request and response examples of file claims.
 * Recorded from a real run of the service (ids, tokens and times as it issues them; lists cut to three
 * items), then kept by hand. tests/openapi.test.ts validates each against its schema.
 */
/** A waiting claim request (POST /claim with waitSeconds, issue 24). */
const WAITING_REQUEST = {
  id: "5b0f7a4e-3c1d-4d8e-9a51-0c2f6e7d8b90",
  files: ["src/login.ts"],
  status: "waiting",
  position: { "src/login.ts": 0 },
  holders: { "src/login.ts": "builder" },
  createdAt: "2026-11-26T23:02:01.894Z",
  expiresAt: "2026-11-26T23:12:01.894Z",
};

export const claimExamples: ExampleTable = {
  "POST /claim": {
    request: {
      files: [
        "src/login.test.ts",
      ],
      ticketId: "WEB-12",
      estimatedSeconds: 1800,
    },
    responses: {
      200: {
        data: {
          claims: [
            {
              file: "src/login.test.ts",
              claimedAt: "2026-11-26T23:02:01.894Z",
              expiresAt: "2026-11-26T23:32:01.894Z",
              fence: 57,
            },
          ],
          nextAction: {
            action: "RESUME_WORK",
            "message":
              "Work on the files; log a PROGRESS entry (POST /ledger) at least every 15 minutes, re-claim before 2026-11-26T23:32:01.894Z if you need longer, and release (POST /release) or hand off when done",
          },
        },
        meta: {
          callsRemaining: 14928,
        },
      },
      202: {
        data: {
          request: WAITING_REQUEST,
          nextAction: {
            action: "WAIT_FOR_GRANT",
            message:
              "Do not poll POST /claim: the service grants these files to you itself, in arrival order, as soon as they are free (event claim.granted with requestId 5b0f7a4e-3c1d-4d8e-9a51-0c2f6e7d8b90 in GET /events, claims.granted in GET /context, or GET /claim/requests/5b0f7a4e-3c1d-4d8e-9a51-0c2f6e7d8b90). Work on something else meanwhile; the request expires at 2026-11-26T23:12:01.894Z (cancel it with DELETE /claim/requests/5b0f7a4e-3c1d-4d8e-9a51-0c2f6e7d8b90)",
          },
        },
        meta: { callsRemaining: 14927 },
      },
      409: {
        error: {
          code: "CONFLICT",
          message: "Cannot claim src/login.ts: held by builder. Nothing was claimed.",
          details: {
            conflicts: [
              {
                file: "src/login.ts",
                claimantName: "builder",
                claimedAt: "2026-11-26T23:02:01.400Z",
                expiresAt: "2026-11-27T00:02:01.400Z",
                claimAgeMinutes: 0,
                isStale: false,
                status: "active",
                ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
                warning: "src/login.ts is held by builder (claimed 0 minutes ago)",
                recovery: {
                  action: "wait",
                  endpoint: "GET /claim/check",
                  "hint":
                    "Wait until 2026-11-27T00:02:01.400Z or until builder releases it, then claim again",
                  payloadHint: null,
                },
              },
            ],
          },
        },
      },
    },
  },
  "GET /claim/requests": {
    responses: {
      200: { data: { requests: [WAITING_REQUEST] }, meta: {} },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message:
            'Invalid status: Invalid option: expected one of "waiting"|"granted"|"expired"|"cancelled"',
          details: {
            target: "query",
            fields: [{
              path: "status",
              message: 'Invalid option: expected one of "waiting"|"granted"|"expired"|"cancelled"',
              code: "invalid_value",
            }],
          },
        },
      },
    },
  },
  "GET /claim/requests/{id}": {
    responses: {
      200: {
        data: {
          ...WAITING_REQUEST,
          status: "granted",
          position: {},
          holders: {},
          grantedAt: "2026-11-26T23:09:12.310Z",
          claims: [{
            file: "src/login.ts",
            claimedAt: "2026-11-26T23:09:12.310Z",
            expiresAt: "2026-11-26T23:39:12.310Z",
          }],
        },
        meta: {},
      },
      404: {
        error: {
          code: "NOT_FOUND",
          message: 'Cannot find claim request "5b0f7a4e-3c1d-4d8e-9a51-0c2f6e7d8b90": not one of yours',
        },
      },
    },
  },
  "DELETE /claim/requests/{id}": {
    responses: {
      200: {
        data: {
          ...WAITING_REQUEST,
          status: "cancelled",
          position: {},
          holders: {},
          endedAt: "2026-11-26T23:05:40.002Z",
        },
        meta: {},
      },
      409: {
        error: {
          code: "CONFLICT",
          message: 'Cannot cancel claim request "5b0f7a4e-3c1d-4d8e-9a51-0c2f6e7d8b90": it is granted',
          details: { status: "granted" },
        },
      },
    },
  },
  "GET /claim/check": {
    responses: {
      200: {
        data: {
          files: [
            {
              file: "src/login.ts",
              available: false,
              claimant: "builder",
              isSelf: false,
              isStale: false,
              claimedAt: "2026-11-26T23:02:01.400Z",
              expiresAt: "2026-11-27T00:02:01.400Z",
              status: "active",
            },
            {
              file: "src/styles.css",
              available: true,
            },
          ],
        },
        meta: {
          callsRemaining: 14997,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: "Invalid files: Invalid input: expected string, received undefined",
          details: {
            target: "query",
            fields: [
              {
                path: "files",
                message: "Invalid input: expected string, received undefined",
                code: "invalid_type",
              },
            ],
          },
        },
      },
    },
  },
  "POST /claim/verify": {
    request: {
      files: ["src/login.ts", { file: "src/login.test.ts", fence: 57 }, "src/session.ts"],
    },
    responses: {
      200: {
        data: {
          ok: false,
          files: [
            { file: "src/login.ts", status: "held", fence: 56, holder: "builder" },
            { file: "src/login.test.ts", status: "held", fence: 57, holder: "builder" },
            { file: "src/session.ts", status: "held_by_other", fence: 12, holder: "reviewer" },
          ],
        },
        meta: {
          callsRemaining: 14990,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: "Invalid files: Too small: expected array to have >=1 items",
          details: {
            target: "json",
            fields: [
              {
                path: "files",
                message: "Too small: expected array to have >=1 items",
                code: "too_small",
              },
            ],
          },
        },
      },
    },
  },
  "POST /release": {
    request: {
      files: [
        "src/styles.css",
      ],
    },
    responses: {
      200: {
        data: {
          released: [
            "src/styles.css",
          ],
        },
        meta: {
          callsRemaining: 14992,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: "Invalid files: Send exactly one of `files` or `all: true`",
          details: {
            target: "json",
            fields: [
              {
                path: "files",
                message: "Send exactly one of `files` or `all: true`",
                code: "custom",
              },
            ],
          },
        },
      },
    },
  },
};
