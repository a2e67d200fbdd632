import { ticketNotFound } from "./shared.ts";
import type { ExampleTable } from "./types.ts";

/**
 * Request and response examples of sprints.
 * Recorded from a real run of the service (ids, tokens and times as it issues them; lists cut to three
 * items), then kept by hand. tests/openapi.test.ts validates each against its schema.
 */
export const sprintExamples: ExampleTable = {
  "POST /sprint": {
    request: {
      name: "Sprint 3",
      goal: "Sign-in works end to end",
      startDate: "2026-11-23",
      endDate: "2026-12-04",
      capacityPoints: 30,
    },
    responses: {
      201: {
        data: {
          id: "064ba2fa-dc0b-405e-a13b-2a0abfbeaeb1",
          number: 1,
          name: "Sprint 3",
          status: "planning",
          createdAt: "2026-11-26T23:02:03.042Z",
        },
        meta: {
          callsRemaining: 14971,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: "endDate is earlier than startDate",
          details: {
            fields: [
              {
                path: "endDate",
                message: "Must not be earlier than startDate",
                code: "custom",
              },
            ],
            recovery: {
              action: "FIX_SPRINT_FIELDS",
              endpoint: "POST /sprint",
              payloadHint: {
                name: "<name>",
                startDate: "<YYYY-MM-DD>",
                endDate: "<YYYY-MM-DD>",
                capacityPoints: "<0-9999>",
              },
              "hint":
                "Dates are ISO 8601 (YYYY-MM-DD or date-time with offset), endDate not before startDate, capacityPoints 0 to 9999, name 1 to 200, goal up to 2000",
            },
          },
        },
      },
    },
  },
  "POST /sprint/assign": {
    request: {
      ticketId: "WEB-12",
      sprintId: "064ba2fa-dc0b-405e-a13b-2a0abfbeaeb1",
    },
    responses: {
      200: {
        data: {
          ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
          sprintId: "064ba2fa-dc0b-405e-a13b-2a0abfbeaeb1",
          action: "assigned",
        },
        meta: {
          callsRemaining: 14969,
        },
      },
      404: ticketNotFound,
    },
  },
  "PATCH /sprint/{sprintId}": {
    request: {
      status: "active",
    },
    responses: {
      200: {
        data: {
          id: "064ba2fa-dc0b-405e-a13b-2a0abfbeaeb1",
          status: "active",
          name: "Sprint 3",
          updatedFields: [
            "status",
          ],
        },
        meta: {
          callsRemaining: 14965,
        },
      },
      404: {
        error: {
          code: "NOT_FOUND",
          message: 'No sprint "2bc97452-cf6f-4c90-9351-0e480ae5de17" in this project',
          details: {
            sprintId: "2bc97452-cf6f-4c90-9351-0e480ae5de17",
            recovery: {
              action: "LIST_SPRINTS",
              endpoint: "GET /sprint",
              payloadHint: null,
              hint: "List the project's sprints and use a sprint's id (UUID)",
            },
          },
        },
      },
    },
  },
  "GET /sprint": {
    responses: {
      200: {
        data: [
          {
            id: "064ba2fa-dc0b-405e-a13b-2a0abfbeaeb1",
            number: 1,
            name: "Sprint 3",
            goal: "Sign-in works end to end",
            status: "active",
            startDate: "2026-11-23",
            endDate: "2026-12-04",
            capacityPoints: 30,
            createdAt: "2026-11-26T23:02:03.042Z",
            updatedAt: "2026-11-26T23:02:03.125Z",
            startedAt: "2026-11-26T23:02:03.125Z",
            completedAt: null,
          },
        ],
        meta: {
          callsRemaining: 14885,
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
  "GET /sprint/current": {
    responses: {
      200: {
        data: {
          sprint: {
            id: "064ba2fa-dc0b-405e-a13b-2a0abfbeaeb1",
            name: "Sprint 3",
            number: 1,
            goal: "Sign-in works end to end",
            status: "active",
            startedAt: "2026-11-26T23:02:03.125Z",
            completedAt: null,
          },
          summary: {
            total: 1,
            byStatus: {
              in_progress: 1,
            },
            completionPct: 0,
            agentProgress: [
              {
                agentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
                agentName: "builder",
                inProgress: 1,
                inReview: 0,
                done: 0,
              },
            ],
          },
        },
        meta: {
          callsRemaining: 14884,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: 'Unknown include "everything": use tickets',
          details: {
            fields: [
              {
                path: "include",
                message: "Allowed values: tickets",
                code: "invalid_value",
              },
            ],
            target: "query",
          },
        },
      },
    },
  },
  "GET /sprint/{sprintId}/plan": {
    responses: {
      200: {
        data: {
          waves: [
            {
              tickets: [
                {
                  key: "WEB-12",
                  title: "Fix the token refresh",
                  priority: "high",
                  expectedFiles: ["src/auth/token.ts"],
                },
                {
                  key: "WEB-14",
                  title: "Style the login page",
                  priority: "normal",
                  expectedFiles: ["src/login.css"],
                },
              ],
            },
            {
              tickets: [
                {
                  key: "WEB-13",
                  title: "Log token failures",
                  priority: "normal",
                  expectedFiles: ["src/auth/token.ts"],
                },
              ],
            },
          ],
          blockedByClaims: [{ key: "WEB-14", files: ["src/login.css"], holders: ["designer"] }],
        },
        meta: { callsRemaining: 14880 },
      },
      404: {
        error: {
          code: "NOT_FOUND",
          message: 'No sprint "cf03682d-b740-4774-a266-d17e29cb52af" in this project',
          details: {
            sprintId: "cf03682d-b740-4774-a266-d17e29cb52af",
            recovery: {
              action: "LIST_SPRINTS",
              endpoint: "GET /sprint",
              payloadHint: null,
              hint: "List the project's sprints and use a sprint's id (UUID)",
            },
          },
        },
      },
    },
  },
  "GET /sprint/{sprintId}": {
    responses: {
      200: {
        data: {
          id: "064ba2fa-dc0b-405e-a13b-2a0abfbeaeb1",
          number: 1,
          name: "Sprint 3",
          goal: "Sign-in works end to end",
          status: "active",
          startDate: "2026-11-23",
          endDate: "2026-12-04",
          capacityPoints: 30,
          createdAt: "2026-11-26T23:02:03.042Z",
          updatedAt: "2026-11-26T23:02:03.125Z",
          startedAt: "2026-11-26T23:02:03.125Z",
          completedAt: null,
          releaseNotes: null,
        },
        meta: {
          callsRemaining: 14883,
        },
      },
      404: {
        error: {
          code: "NOT_FOUND",
          message: 'No sprint "cf03682d-b740-4774-a266-d17e29cb52af" in this project',
          details: {
            sprintId: "cf03682d-b740-4774-a266-d17e29cb52af",
            recovery: {
              action: "LIST_SPRINTS",
              endpoint: "GET /sprint",
              payloadHint: null,
              hint: "List the project's sprints and use a sprint's id (UUID)",
            },
          },
        },
      },
    },
  },
};
