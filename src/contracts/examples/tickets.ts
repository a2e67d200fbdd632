import { beginLoginTicket, loginTicket, ticketNotFound, untouchedTicket } from "./shared.ts";
import type { ExampleTable } from "./types.ts";

/**
 * Request and response examples of tickets, their workflow and artifacts.
 * Recorded from a real run of the service (ids, tokens and times as it issues them; lists cut to three
 * items), then kept by hand. tests/openapi.test.ts validates each against its schema.
 */

/** What a ticket without its agent-first fields is told to send (POST /ticket and the batch). */
const agentFirstSuggestions = {
  expectedFiles: {
    hint: "1 to 50 repository paths you expect to change",
    example: [
      "src/<module>/<file>.ts",
    ],
  },
  doneDefinition: {
    hint: "20 to 500 characters saying, checkably, when the ticket is done",
    example: "The new endpoint answers 200 with the documented shape and its tests pass",
  },
  verificationCommand: {
    hint: "10 to 500 characters: the command that proves it works",
    example: "deno test --allow-all tests/",
  },
  riskClass: {
    "hint":
      "local (only this change), shared-state (touches data or config others use) or irreversible (migrations, deletions, releases)",
    example: "local",
  },
};

export const ticketExamples: ExampleTable = {
  "POST /ticket": {
    request: {
      title: "Login form",
      type: "feature",
      description: "Email and password sign-in for the web app",
      expectedFiles: [
        "src/login.ts",
        "src/login.test.ts",
      ],
      doneDefinition: "A user can sign in with email and password",
      verificationCommand: "deno test src/login.test.ts",
      riskClass: "local",
      acceptanceCriteria: [
        {
          title: "Valid credentials sign in",
          requiresEvidence: true,
        },
        {
          title: "A wrong password shows an error",
          requiresEvidence: false,
        },
      ],
      tags: [
        "auth",
      ],
      priority: "high",
      idempotencyKey: "login-form-1",
    },
    responses: {
      201: {
        data: {
          ...loginTicket,
          possibleDuplicates: [],
          nextAction: beginLoginTicket,
          url: "http://localhost:8787/api/ticket?id=a9cc49b7-709e-40f1-8c63-32ce857b1915",
        },
        meta: {
          callsRemaining: 14975,
        },
      },
      200: {
        data: {
          id: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
          number: 12,
          ticketRef: "WEB-12",
          status: "backlog",
          createdAt: "2026-11-26T23:02:00.345Z",
          idempotent: true,
          url: "http://localhost:8787/api/ticket?id=a9cc49b7-709e-40f1-8c63-32ce857b1915",
          nextAction: beginLoginTicket,
        },
        meta: {
          callsRemaining: 14972,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          "message":
            "Missing agent-first field(s): expectedFiles, doneDefinition, verificationCommand, riskClass",
          details: {
            missing: [
              "expectedFiles",
              "doneDefinition",
              "verificationCommand",
            ],
            suggestions: agentFirstSuggestions,
            fields: [],
            recovery: {
              action: "ADD_REQUIRED_FIELDS",
              endpoint: "POST /ticket",
              payloadHint: {
                title: "Login form",
                expectedFiles: [
                  "src/<module>/<file>.ts",
                ],
                doneDefinition: "The new endpoint answers 200 with the documented shape and its tests pass",
                verificationCommand: "deno test --allow-all tests/",
                riskClass: "local",
              },
              "hint":
                "Send the ticket again with expectedFiles, doneDefinition, verificationCommand and riskClass",
            },
          },
        },
      },
    },
  },
  "POST /ticket/batch": {
    request: {
      tickets: [
        {
          title: "Project skeleton",
          expectedFiles: [
            "src/part-1.ts",
          ],
          doneDefinition: "It works and its tests pass",
          verificationCommand: "deno test src/part-1.test.ts",
          riskClass: "local",
        },
        {
          title: "CI pipeline",
          expectedFiles: [
            "src/part-2.ts",
          ],
          doneDefinition: "It works and its tests pass",
          verificationCommand: "deno test src/part-2.test.ts",
          riskClass: "local",
        },
        {
          title: "Database schema",
          expectedFiles: [
            "src/part-3.ts",
          ],
          doneDefinition: "It works and its tests pass",
          verificationCommand: "deno test src/part-3.test.ts",
          riskClass: "local",
        },
      ],
    },
    responses: {
      200: {
        data: {
          created: [
            {
              index: 0,
              id: "92069095-8dcb-4092-ab37-930ff8f188e5",
              number: 1,
              ticketRef: "WEB-1",
              status: "backlog",
              createdAt: "2026-11-26T23:01:59.960Z",
              url: "http://localhost:8787/api/ticket?id=92069095-8dcb-4092-ab37-930ff8f188e5",
            },
            {
              index: 1,
              id: "045abe77-bb75-456a-a311-6e1e59a89fd4",
              number: 2,
              ticketRef: "WEB-2",
              status: "backlog",
              createdAt: "2026-11-26T23:02:00.032Z",
              url: "http://localhost:8787/api/ticket?id=045abe77-bb75-456a-a311-6e1e59a89fd4",
            },
            {
              index: 2,
              id: "5c600407-e54c-4793-aff9-755fc66ad56a",
              number: 3,
              ticketRef: "WEB-3",
              status: "backlog",
              createdAt: "2026-11-26T23:02:00.051Z",
              url: "http://localhost:8787/api/ticket?id=5c600407-e54c-4793-aff9-755fc66ad56a",
            },
          ],
          errors: [
            {
              index: 10,
              title: "",
              status: 400,
              error: {
                code: "VALIDATION_ERROR",
                "message":
                  "Missing agent-first field(s): expectedFiles, doneDefinition, verificationCommand, riskClass",
                details: {
                  missing: [
                    "expectedFiles",
                    "doneDefinition",
                    "verificationCommand",
                  ],
                  suggestions: agentFirstSuggestions,
                  fields: [
                    {
                      path: "title",
                      message: "Too small: expected string to have >=1 characters",
                      code: "too_small",
                    },
                  ],
                  recovery: {
                    action: "ADD_REQUIRED_FIELDS",
                    endpoint: "POST /ticket",
                    payloadHint: {
                      title: "",
                      expectedFiles: [
                        "src/<module>/<file>.ts",
                      ],
                      "doneDefinition":
                        "The new endpoint answers 200 with the documented shape and its tests pass",
                      verificationCommand: "deno test --allow-all tests/",
                      riskClass: "local",
                    },
                    "hint":
                      "Send the ticket again with expectedFiles, doneDefinition, verificationCommand and riskClass",
                  },
                },
              },
            },
          ],
          total: 11,
        },
        meta: {
          callsRemaining: 14984,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: "Invalid tickets: Too small: expected array to have >=1 items",
          details: {
            target: "json",
            fields: [
              {
                path: "tickets",
                message: "Too small: expected array to have >=1 items",
                code: "too_small",
              },
            ],
          },
        },
      },
    },
  },
  "GET /ticket": {
    responses: {
      200: {
        data: {
          ...loginTicket,
          ledger: [],
        },
        meta: {
          callsRemaining: 14969,
        },
      },
      404: ticketNotFound,
    },
  },
  "GET /board": {
    responses: {
      200: {
        data: {
          tickets: [
            {
              id: "92069095-8dcb-4092-ab37-930ff8f188e5",
              number: 1,
              ticketRef: "WEB-1",
              title: "Project skeleton",
              description: null,
              type: null,
              tags: [],
              priority: "normal",
              status: "backlog",
              expectedFiles: [
                "src/part-1.ts",
              ],
              doneDefinition: "It works and its tests pass",
              verificationCommand: "deno test src/part-1.test.ts",
              riskClass: "local",
              outOfScope: null,
              acceptanceCriteria: [],
              ...untouchedTicket,
              createdByAgentId: "dbece4ea-d293-4a94-b183-a9eb073465b8",
              statusChangedAt: "2026-11-26T23:01:59.960Z",
              createdAt: "2026-11-26T23:01:59.960Z",
              updatedAt: "2026-11-26T23:01:59.960Z",
              criteriaCount: 0,
              criteriaPassed: 0,
              artifactCount: 0,
              hasOpenArtifacts: false,
              nextAction: {
                action: "ADD_CRITERIA",
                "message":
                  "Open and unassigned, no acceptance criteria yet: add some while acknowledging, then begin it",
                endpoint: "POST /ticket/92069095-8dcb-4092-ab37-930ff8f188e5/acknowledge",
                payloadHint: {
                  additionalCriteria: [
                    {
                      title: "<criterion>",
                      requiresEvidence: true,
                    },
                  ],
                },
              },
            },
            {
              id: "045abe77-bb75-456a-a311-6e1e59a89fd4",
              number: 2,
              ticketRef: "WEB-2",
              title: "CI pipeline",
              description: null,
              type: null,
              tags: [],
              priority: "normal",
              status: "backlog",
              expectedFiles: [
                "src/part-2.ts",
              ],
              doneDefinition: "It works and its tests pass",
              verificationCommand: "deno test src/part-2.test.ts",
              riskClass: "local",
              outOfScope: null,
              acceptanceCriteria: [],
              ...untouchedTicket,
              createdByAgentId: "dbece4ea-d293-4a94-b183-a9eb073465b8",
              statusChangedAt: "2026-11-26T23:02:00.032Z",
              createdAt: "2026-11-26T23:02:00.032Z",
              updatedAt: "2026-11-26T23:02:00.032Z",
              criteriaCount: 0,
              criteriaPassed: 0,
              artifactCount: 0,
              hasOpenArtifacts: false,
              nextAction: {
                action: "ADD_CRITERIA",
                "message":
                  "Open and unassigned, no acceptance criteria yet: add some while acknowledging, then begin it",
                endpoint: "POST /ticket/045abe77-bb75-456a-a311-6e1e59a89fd4/acknowledge",
                payloadHint: {
                  additionalCriteria: [
                    {
                      title: "<criterion>",
                      requiresEvidence: true,
                    },
                  ],
                },
              },
            },
          ],
          total: 12,
          statusCounts: {
            backlog: 12,
          },
          returned: 2,
          ticketPrefix: "WEB",
          hasMore: true,
          nextCursor: "eyJ2IjoxLCJhZnRlciI6MiwiZiI6IjFmemtzbmsifQ",
          collisionWarnings: [],
          columns: [
            "backlog",
            "claimed",
            "in_progress",
          ],
        },
        meta: {
          callsRemaining: 14965,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          "message":
            "Unknown status doing: this board has backlog, claimed, in_progress, blocked, needs_review, review, changes_requested, done, cancelled",
          details: {
            field: "status",
            validStatuses: [
              "backlog",
              "claimed",
              "in_progress",
            ],
            recovery: {
              action: "USE_VALID_STATUS",
              endpoint: "GET /board",
              payloadHint: {
                status: "backlog",
              },
              hint: "Filter by one of the board's columns",
            },
          },
        },
      },
    },
  },
  "GET /search": {
    responses: {
      200: {
        data: {
          query: "login",
          results: [
            {
              ...loginTicket,
              rank: 0.0608,
              snippet: "Email and password sign-in for the web app",
            },
          ],
          pagination: {
            total: 1,
            limit: 20,
            offset: 0,
            hasMore: false,
          },
        },
        meta: {
          callsRemaining: 14961,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: "Invalid q: Too small: expected string to have >=2 characters",
          details: {
            target: "query",
            fields: [
              {
                path: "q",
                message: "Too small: expected string to have >=2 characters",
                code: "too_small",
              },
            ],
          },
        },
      },
    },
  },
  "GET /workflow": {
    responses: {
      200: {
        data: {
          board: "default",
          reviewMode: "medium",
          statuses: [
            "backlog",
            "claimed",
            "in_progress",
          ],
          reviewStatus: "review",
          terminal: [
            "done",
            "cancelled",
          ],
          transitions: {
            backlog: [
              "claimed",
              "in_progress",
              "cancelled",
            ],
            claimed: [
              "in_progress",
              "backlog",
              "cancelled",
            ],
            in_progress: [
              "review",
              "needs_review",
              "blocked",
            ],
            blocked: [
              "in_progress",
              "backlog",
              "cancelled",
            ],
            needs_review: [
              "review",
              "in_progress",
              "backlog",
            ],
            review: [
              "done",
              "in_progress",
              "cancelled",
            ],
            changes_requested: [
              "in_progress",
              "backlog",
              "cancelled",
            ],
            done: [],
            cancelled: [],
          },
          actions: {
            backlog: [
              "claim",
              "block",
            ],
            claimed: [
              "release",
              "block",
            ],
            in_progress: [
              "release",
              "submit_for_review",
              "block",
            ],
            blocked: [
              "release",
              "unblock",
            ],
            needs_review: [
              "release",
              "submit_for_review",
              "approve",
            ],
            review: [
              "release",
              "approve",
              "request_changes",
            ],
            changes_requested: [
              "release",
              "submit_for_review",
              "block",
            ],
            done: [],
            cancelled: [],
          },
          guards: {
            criteriaRequiredForInProgress: true,
            testedEntryRequiredFor: [
              "review",
              "in_review",
              "qa",
            ],
            directDoneAllowed: false,
          },
        },
        meta: {
          callsRemaining: 14957,
        },
      },
      401: {
        error: {
          code: "UNAUTHORIZED",
          message: "Missing bearer token",
        },
      },
    },
  },
  "GET /issue": {
    responses: {
      200: {
        data: {
          issues: [
            {
              id: "92069095-8dcb-4092-ab37-930ff8f188e5",
              key: "WEB-1",
              number: 1,
              title: "Project skeleton",
              state: "open",
              status: "backlog",
              type: null,
              priority: "normal",
              labels: [],
              assignee: null,
              url: "http://localhost:8787/api/ticket?key=WEB-1",
              createdAt: "2026-11-26T23:01:59.960Z",
              updatedAt: "2026-11-26T23:01:59.960Z",
              nextAction: {
                action: "ADD_CRITERIA",
                "message":
                  "Open and unassigned, no acceptance criteria yet: add some while acknowledging, then begin it",
                endpoint: "POST /ticket/92069095-8dcb-4092-ab37-930ff8f188e5/acknowledge",
                payloadHint: {
                  additionalCriteria: [
                    {
                      title: "<criterion>",
                      requiresEvidence: true,
                    },
                  ],
                },
              },
            },
            {
              id: "045abe77-bb75-456a-a311-6e1e59a89fd4",
              key: "WEB-2",
              number: 2,
              title: "CI pipeline",
              state: "open",
              status: "backlog",
              type: null,
              priority: "normal",
              labels: [],
              assignee: null,
              url: "http://localhost:8787/api/ticket?key=WEB-2",
              createdAt: "2026-11-26T23:02:00.032Z",
              updatedAt: "2026-11-26T23:02:00.032Z",
              nextAction: {
                action: "ADD_CRITERIA",
                "message":
                  "Open and unassigned, no acceptance criteria yet: add some while acknowledging, then begin it",
                endpoint: "POST /ticket/045abe77-bb75-456a-a311-6e1e59a89fd4/acknowledge",
                payloadHint: {
                  additionalCriteria: [
                    {
                      title: "<criterion>",
                      requiresEvidence: true,
                    },
                  ],
                },
              },
            },
          ],
          total: 12,
          returned: 2,
          nextCursor: "eyJ2IjoxLCJhZnRlciI6MiwiZiI6IjExdmV4NGEifQ",
          boardUrl: "http://localhost:8787/api/board",
        },
        meta: {
          callsRemaining: 14956,
        },
      },
      401: {
        error: {
          code: "UNAUTHORIZED",
          message: "Missing bearer token",
        },
      },
    },
  },
  "POST /begin": {
    request: {
      ticketId: "WEB-12",
      files: [
        "src/login.ts",
      ],
      acknowledgeCriteria: true,
      estimatedSeconds: 3600,
    },
    responses: {
      200: {
        data: {
          ticket: {
            id: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
            status: "in_progress",
          },
          sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
          claims: [
            {
              file: "src/login.ts",
              claimedAt: "2026-11-26T23:02:01.400Z",
              expiresAt: "2026-11-27T00:02:01.400Z",
            },
          ],
          criteriaAcknowledged: true,
          nextAction: {
            action: "LOG_PROGRESS",
            endpoint: "POST /ledger",
            "message":
              "Work on WEB-12: log PROGRESS entries as you go, a TESTED entry once verified (run: deno test src/login.test.ts), then POST /handoff",
          },
        },
        meta: {
          callsRemaining: 14936,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          "message":
            'Review mode "medium": the ticket has no acceptance criteria; add some before starting it',
          details: {
            reviewMode: "medium",
            nextStep: {
              action: "ADD_CRITERIA",
              endpoint: "POST /ticket/39c5c9c5-7a21-4ab5-92cb-20572b9c75b6/acknowledge",
              tool: "svc_ticket_acknowledge",
              "message":
                "The ticket has no acceptance criteria: acknowledge it with additionalCriteria, then begin again",
              payload: {
                ticketId: "39c5c9c5-7a21-4ab5-92cb-20572b9c75b6",
                additionalCriteria: [
                  {
                    title: "<checkable criterion>",
                    requiresEvidence: false,
                  },
                ],
              },
            },
            recovery: {
              action: "ADD_CRITERIA",
              endpoint: "POST /ticket/39c5c9c5-7a21-4ab5-92cb-20572b9c75b6/acknowledge",
              payloadHint: {
                additionalCriteria: [
                  {
                    title: "<checkable criterion>",
                    requiresEvidence: false,
                  },
                ],
              },
              hint: "Acknowledge the ticket with additionalCriteria (1 to 20), then start it",
            },
          },
        },
      },
    },
  },
  "POST /ticket/{ticketId}/acknowledge": {
    request: {
      additionalCriteria: [
        {
          title: "The box is unchecked by default",
          requiresEvidence: false,
        },
      ],
    },
    responses: {
      200: {
        data: {
          ticketId: "39c5c9c5-7a21-4ab5-92cb-20572b9c75b6",
          ticketRef: "WEB-13",
          criteriaAcknowledgedAt: "2026-11-26T23:02:01.157Z",
          acceptanceCriteria: [
            {
              title: "The box is unchecked by default",
              source: "manual",
              requiresEvidence: false,
            },
          ],
          added: 1,
          alreadyAcknowledged: false,
          nextAction: {
            action: "PICK_TICKET",
            message: "Open and unassigned: begin it (claims its files and starts it)",
            endpoint: "POST /begin",
            payloadHint: {
              ticketId: "39c5c9c5-7a21-4ab5-92cb-20572b9c75b6",
              files: [
                "src/remember.ts",
              ],
              acknowledgeCriteria: true,
            },
          },
        },
        meta: {
          callsRemaining: 14947,
        },
      },
      404: {
        error: {
          code: "TICKET_NOT_FOUND",
          message: 'Cannot find ticket "WEB-13" in this project',
          details: {
            ref: "WEB-13",
            recovery: {
              action: "RESOLVE_TICKET_REF",
              endpoint: "GET /ticket?key=WEB-13",
              payloadHint: null,
              hint: "Paths take the ticket's id (UUID), not its key: read the ticket by key and use its id",
            },
          },
        },
      },
    },
  },
  "DELETE /ticket": {
    request: {
      ticketId: "WEB-13",
    },
    responses: {
      200: {
        data: {
          deleted: {
            id: "39c5c9c5-7a21-4ab5-92cb-20572b9c75b6",
            number: 13,
            ticketRef: "WEB-13",
            title: "Remember-me checkbox",
          },
        },
        meta: {
          callsRemaining: 14941,
        },
      },
      404: {
        error: {
          code: "TICKET_NOT_FOUND",
          message: 'Cannot find ticket "WEB-13" in this project',
          details: {
            ref: "WEB-13",
            recovery: {
              action: "RESOLVE_TICKET_REF",
              endpoint: "GET /board",
              payloadHint: null,
              "hint":
                'No ticket "WEB-13" in this project: list the board and use a ticket\'s id or its <PREFIX>-<number> key',
            },
          },
        },
      },
    },
  },
  "PATCH /ticket": {
    request: {
      ticketId: "WEB-12",
      branch: "feat/login-form",
      priority: "high",
    },
    responses: {
      200: {
        data: {
          id: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
          number: 12,
          ticketRef: "WEB-12",
          status: "in_progress",
          title: "Login form",
          description: "Email and password sign-in for the web app",
          assigneeAgentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
          reviewerAgentId: null,
          updatedAt: "2026-11-26T23:02:01.683Z",
        },
        meta: {
          callsRemaining: 14933,
        },
      },
      403: {
        error: {
          code: "FORBIDDEN",
          "message":
            'Review mode "medium": a ticket reaches done only through review; submit it for review first',
          details: {
            reviewMode: "medium",
            status: "in_progress",
            recovery: {
              action: "REQUEST_REVIEW",
              endpoint: "PATCH /ticket",
              payloadHint: {
                ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
                action: "submit_for_review",
                reviewHandoff: {
                  summary: "<what changed>",
                  changedFiles: [
                    "<path>",
                  ],
                  branch: "<branch>",
                },
              },
              hint: "Submit the ticket for review with a review handoff (or hand off with POST /handoff)",
            },
          },
        },
      },
    },
  },
  "POST /ticket/{ticketId}/artifacts": {
    request: {
      type: "pull_request",
      url: "https://github.com/acme/web/pull/42",
      ref: "42",
      title: "Login form",
      metadata: {
        ciStatus: "passing",
      },
    },
    responses: {
      201: {
        data: {
          id: "6dd8d1f2-0bc0-4922-ae9e-8fae40794119",
          ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
          type: "pull_request",
          url: "https://github.com/acme/web/pull/42",
          ref: "42",
          title: "Login form",
          metadata: {
            ciStatus: "passing",
          },
          status: "open",
          agentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
          createdAt: "2026-11-26T23:02:02.205Z",
          updatedAt: "2026-11-26T23:02:02.205Z",
        },
        meta: {
          callsRemaining: 14925,
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
      200: {
        data: {
          id: "6dd8d1f2-0bc0-4922-ae9e-8fae40794119",
          ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
          type: "pull_request",
          url: "https://github.com/acme/web/pull/42",
          ref: "42",
          title: "Login form",
          metadata: {
            ciStatus: "passing",
            checks: 12,
          },
          status: "open",
          agentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
          createdAt: "2026-11-26T23:02:02.205Z",
          updatedAt: "2026-11-26T23:02:48.913Z",
        },
        meta: {
          callsRemaining: 14922,
        },
      },
    },
  },
  "GET /ticket/{ticketId}/artifacts": {
    responses: {
      200: {
        data: {
          artifacts: [
            {
              id: "6dd8d1f2-0bc0-4922-ae9e-8fae40794119",
              ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
              type: "pull_request",
              url: "https://github.com/acme/web/pull/42",
              ref: "42",
              title: "Login form",
              metadata: {
                ciStatus: "passing",
              },
              status: "open",
              agentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
              createdAt: "2026-11-26T23:02:02.205Z",
              updatedAt: "2026-11-26T23:02:02.205Z",
            },
          ],
          total: 1,
          open: 1,
        },
        meta: {
          callsRemaining: 14919,
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
  "PATCH /ticket/{ticketId}/artifacts/{artifactId}": {
    request: {
      status: "open",
      metadata: {
        ciStatus: "passing",
        checks: 12,
      },
    },
    responses: {
      200: {
        data: {
          id: "6dd8d1f2-0bc0-4922-ae9e-8fae40794119",
          ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
          type: "pull_request",
          url: "https://github.com/acme/web/pull/42",
          ref: "42",
          title: "Login form",
          metadata: {
            checks: 12,
            ciStatus: "passing",
          },
          status: "open",
          agentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
          createdAt: "2026-11-26T23:02:02.205Z",
          updatedAt: "2026-11-26T23:02:02.310Z",
        },
        meta: {
          callsRemaining: 14913,
        },
      },
      404: {
        error: {
          code: "NOT_FOUND",
          message: 'Cannot find artifact "a0a2aa85-efa6-4ac9-a894-b93d491f1b5a" on this ticket',
          details: {
            artifactId: "a0a2aa85-efa6-4ac9-a894-b93d491f1b5a",
          },
        },
      },
    },
  },
  "POST /ticket/{ticketId}/approve": {
    request: {
      comment: "Checked the form and its tests",
      expectedStatus: "review",
    },
    responses: {
      200: {
        data: {
          id: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
          number: 12,
          ticketRef: "WEB-12",
          status: "done",
          previousStatus: "review",
          reviewerAgentId: "d72286a3-a252-4a6d-bb1c-1c0777a061ba",
          approvedAt: "2026-11-26T23:02:03.613Z",
          releasedFiles: [],
          qa: {
            qaRunId: "89476e6e-7f8c-44b1-9f5b-c16c5d5809a3",
            status: "pending",
            pendingTests: 1,
            failedTests: 0,
          },
          warnings: [
            "QA run 89476e6e-7f8c-44b1-9f5b-c16c5d5809a3 has 1 pending test(s)",
          ],
        },
        meta: {
          callsRemaining: 14989,
        },
      },
      409: {
        error: {
          code: "CONFLICT",
          message: "The ticket is already done; nothing was written",
          details: {
            ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
            expectedStatus: "done",
            observedStatus: "done",
            recovery: {
              action: "REFRESH_TICKET_STATE",
              endpoint: "GET /ticket",
              payloadHint: {
                id: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
              },
              hint: "Read the ticket again and decide the move from its current status",
            },
            reason: "ALREADY_IN_STATUS",
          },
        },
      },
    },
  },
};
