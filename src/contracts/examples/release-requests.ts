import type { ExampleTable } from "./types.ts";

/** Request and response examples of release requests (issue 24 point 3), kept by hand from a real run. */
const pending = {
  id: "7f1c2d7e-5a0b-4c1e-9f3a-2b6d8e4a1c90",
  files: ["src/auth/token.ts"],
  holder: "builder",
  asker: "fixer",
  message: "I need src/auth/token.ts for the refresh bug (WEB-14)",
  status: "pending",
  claimEnded: false,
  answerMessage: null,
  releasedFiles: null,
  createdAt: "2026-11-28T01:00:00.000Z",
  answeredAt: null,
};
const released = {
  ...pending,
  status: "released",
  answerMessage: "Take it, I am done with it",
  releasedFiles: ["src/auth/token.ts"],
  answeredAt: "2026-11-28T01:02:10.000Z",
};
const meta = { callsRemaining: 14928 };
const notFound = {
  error: { code: "NOT_FOUND", message: 'Release request "7f1c2d7e-5a0b-4c1e-9f3a-2b6d8e4a1c90" not found' },
};

export const releaseRequestExamples: ExampleTable = {
  "POST /claim/release-requests": {
    request: { files: ["src/auth/token.ts"], message: pending.message },
    responses: {
      201: { data: pending, meta },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message:
            "Cannot request the release of src/auth/token.ts, src/free.ts: the files must all be held by one other identity",
          details: {
            fields: [{
              path: "files.1",
              message: "src/free.ts is not held by anyone: claim it instead",
              code: "custom",
            }],
            files: ["src/free.ts"],
          },
        },
      },
    },
  },
  "GET /claim/release-requests": {
    responses: {
      200: { data: { requests: [pending] }, meta },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: 'Invalid incoming: Invalid option: expected one of "true"|"false"',
          details: {
            fields: [{
              path: "incoming",
              message: 'Invalid option: expected one of "true"|"false"',
              code: "invalid_value",
            }],
          },
        },
      },
    },
  },
  "GET /claim/release-requests/{requestId}": {
    responses: { 200: { data: released, meta }, 404: notFound },
  },
  "POST /claim/release-requests/{requestId}/answer": {
    request: { answer: "release", message: released.answerMessage },
    responses: {
      200: { data: released, meta },
      409: {
        error: {
          code: "CONFLICT",
          message:
            'Cannot answer release request "7f1c2d7e-5a0b-4c1e-9f3a-2b6d8e4a1c90": it is already released',
          details: { request: released },
        },
      },
    },
  },
};
