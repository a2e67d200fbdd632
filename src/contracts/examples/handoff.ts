import type { ExampleTable } from "./types.ts";

/**
 * Request and response examples of handoff, session closeout and QA runs.
 * Recorded from a real run of the service (ids, tokens and times as it issues them; lists cut to three
 * items), then kept by hand. tests/openapi.test.ts validates each against its schema.
 */
/** The QA run the handoff of WEB-12 opened (`GET /ticket/{ticketId}/qa`, `GET /qa/{qaRunId}`). */
const qaRun = {
  qaRunId: "89476e6e-7f8c-44b1-9f5b-c16c5d5809a3",
  ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
  sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
  agentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
  status: "pending",
  createdAt: "2026-11-26T23:02:03.474Z",
  completedAt: null,
  tests: [
    {
      id: "0196f0c0-870e-4a12-991f-3fae72cdc5d9",
      criterionIndex: 0,
      title: "Valid credentials sign in",
      status: "pending",
      evidence: null,
      updatedAt: "2026-11-26T23:02:03.474Z",
    },
  ],
};

export const handoffExamples: ExampleTable = {
  "POST /handoff": {
    request: {
      moduleName: "login",
      summary: "Login form with email and password; errors shown inline",
      sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
      ticketId: "WEB-12",
      testResults: "6 passed",
      artifacts: [
        {
          type: "commit",
          url: "https://github.com/acme/web/commit/4f2a9c1e",
          ref: "4f2a9c1e",
        },
      ],
    },
    responses: {
      200: {
        data: {
          ok: true,
          modulesDone: 1,
          ticketAdvanced: true,
          nextAction: {
            action: "PICK_TICKET",
            message: "This session is over and its token no longer works: pair again with a new code " +
              "(POST /pair/connect), then: 11 unassigned ticket(s) are ready: pick one from GET /board and " +
              "POST /begin",
          },
          review: {
            required: true,
            mode: "medium",
            qaRunId: "89476e6e-7f8c-44b1-9f5b-c16c5d5809a3",
            criteriaCount: 2,
            qaTestCount: 1,
            ticketStatus: "review",
          },
        },
        meta: {
          callsRemaining: 14870,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: "Cannot hand off: the session has no PROGRESS entry",
          details: {
            missing: [
              "progress_entry",
            ],
            recovery: {
              action: "ADD_REQUIRED_FIELDS",
              endpoint: "POST /ledger",
              payloadHint: {
                type: "PROGRESS",
                content: "<what you did>",
                sessionId: "2f1e98a2-fb45-499a-a0a7-4f97ed4eced7",
              },
              hint:
                "The handoff needs a PROGRESS entry in this session: log what you did with POST /ledger, then hand off again",
            },
          },
        },
      },
    },
  },
  "GET /ticket/{ticketId}/qa": {
    responses: {
      200: {
        data: {
          runs: [
            {
              ...qaRun,
            },
          ],
        },
        meta: {
          callsRemaining: 14997,
        },
      },
      404: {
        error: {
          code: "TICKET_NOT_FOUND",
          message: 'Cannot find ticket "WEB-12" in this project',
          details: {
            ref: "WEB-12",
            recovery: {
              action: "RESOLVE_TICKET_REF",
              endpoint: "GET /ticket?key=WEB-12",
              payloadHint: null,
              hint: "Paths take the ticket's id (UUID), not its key: read the ticket by key and use its id",
            },
          },
        },
      },
    },
  },
  "GET /qa/{qaRunId}": {
    responses: {
      200: {
        data: {
          ...qaRun,
        },
        meta: {
          callsRemaining: 14993,
        },
      },
      404: {
        error: {
          code: "NOT_FOUND",
          message: 'Cannot find QA run "7c829dd4-815a-4d2c-a48b-b0afccfb353d" in this project',
        },
      },
    },
  },
  "POST /qa/{qaRunId}/results": {
    request: {
      tests: [
        {
          criterionIndex: 0,
          status: "passed",
          evidence: "Signed in as demo@example.com with the right password; a wrong one is refused",
        },
      ],
    },
    responses: {
      200: {
        data: {
          ...qaRun,
          status: "passed",
          completedAt: "2026-11-26T23:09:41.120Z",
          tests: [
            {
              ...qaRun.tests[0],
              status: "passed",
              evidence: "Signed in as demo@example.com with the right password; a wrong one is refused",
              updatedAt: "2026-11-26T23:09:41.120Z",
            },
          ],
        },
        meta: {
          callsRemaining: 14990,
        },
      },
      403: {
        error: {
          code: "FORBIDDEN",
          message:
            'Cannot record results of QA run "89476e6e-7f8c-44b1-9f5b-c16c5d5809a3": the ticket is yours to fix, not to verify',
          details: {
            recovery: {
              action: "REQUEST_REVIEW",
              endpoint: "POST /handoff",
              payloadHint: null,
              hint:
                "QA results come from a reviewer: hand the ticket off to review and let another agent record them",
            },
          },
        },
      },
      422: {
        error: {
          code: "VALIDATION_ERROR",
          message: 'QA run "89476e6e-7f8c-44b1-9f5b-c16c5d5809a3" has no test for criterionIndex 1',
          details: {
            fields: [{ path: "tests", message: "No test for criterionIndex 1", code: "custom" }],
            validCriterionIndexes: [0],
          },
        },
      },
    },
  },
};
