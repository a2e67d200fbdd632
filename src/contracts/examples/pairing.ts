import type { ExampleTable } from "./types.ts";

/**
 * Request and response examples of pairing, sessions and sub-agents.
 * Recorded from a real run of the service (ids, tokens and times as it issues them; lists cut to three
 * items), then kept by hand. tests/openapi.test.ts validates each against its schema.
 */
export const pairingExamples: ExampleTable = {
  "GET /pair/prompt": {
    responses: {
      200:
        'You are joining the project "Web" (ticket prefix WEB) on an agent coordination service. Several AI agents share this project\'s board, file claims and ledger.\n\nThis code pairs you with role generator; choose a short agent name.\nThe code works once and expires at 2026-11-26T23:06:58.107Z.\n\n1. Pair (no Authorization header):\n   POST http://localhost:8787/api/pair/connect\n   Content-Type: application/json\n   {"code":"AMCCQKCE","agentName":"<your agent name>","platform":"<your platform, e.g. claude-code>","model":"<your model>"}\n2. Keep data.sessionToken from the answer and send it on every other call:\n   Authorization: Bearer <sessionToken>\n3. Read GET http://localhost:8787/api/context first: br\n…',
      404:
        "Pairing code not found or expired.\n\nThis code is unknown, expired, already used or invalidated after wrong attempts. Ask a project admin (operator API) or your orchestrator (POST /api/pair/code) for a new pairing code, then open /api/pair/prompt?code=<new code> again.\n",
    },
  },
  "POST /pair/connect": {
    request: {
      code: "AMCCQKCE",
      agentName: "builder",
      platform: "claude-code",
      model: "claude-sonnet-4-5",
    },
    responses: {
      200: {
        data: {
          status: "connected",
          sessionToken: "svc_sess_8isSwBv9j6dAS4vUraHZJrzLCHcL24O2RoUGVKz189x",
          sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
          agent: {
            id: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
            name: "builder",
            platform: "claude-code",
          },
          project: {
            id: "ddbad0b1-5cf5-4e24-b0eb-21aa5b397037",
            name: "Web",
            phase: "setup",
            subphase: "brief_missing",
          },
          docsUrl: "http://localhost:8787/docs",
          issuesUrl: "http://localhost:8787/api/issue",
          schemaUrl: "http://localhost:8787/openapi.json",
          mcpUrl: "http://localhost:8787/mcp",
          ticketPrefix: "WEB",
          context: {
            brief: null,
            claims: {
              count: 0,
              ids: [],
            },
            threads: {
              count: 0,
              ids: [],
            },
            "skill":
              "# Working with the coordination service\n1. GET /api/context first: brief, claims, threads, your active ticket and what to do next.\n2. POST /api/begin with a ticket and its files: claims the files and starts the ticket.\n3. Log as you go: POST /api/ledger (PROGRESS, DECISION, TESTED...). Silence over 15 minutes while holding\n   work blocks other writes with 429 LEDGER_STALE.\n4. POST /api/handoff when done: releases your claims and moves the ticket to review.\nNever edit a file another agent has claimed: check with GET /api/claim/check.",
            ledger: [
              {
                id: "409bd305-1d24-4ed6-9f55-c73dac7c603b",
                type: "AGENT_JOINED",
                content: "builder joined (claude-code)",
                agentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
                ticketId: null,
                createdAt: "2026-11-26T23:01:58.146Z",
              },
              {
                id: "82e7ddc9-5f0b-4a7f-9d02-b20055d1ce91",
                type: "AGENT_JOINED",
                content: "lead joined (claude-code)",
                agentId: "dbece4ea-d293-4a94-b183-a9eb073465b8",
                ticketId: null,
                createdAt: "2026-11-26T23:01:58.040Z",
              },
            ],
            conflictZones: [],
            cursors: {
              events: "4",
              ledger: "2026-11-26T23:01:58.146Z",
            },
          },
          workqueue: [],
          "message":
            'Connected as builder (generator) to Web. Send "Authorization: Bearer <sessionToken>" and start with GET /api/context.',
        },
        meta: {},
      },
      401: {
        error: {
          code: "INVALID_CODE",
          message: "Pairing code is unknown, expired, used or invalidated",
          details: {
            recovery: {
              action: "REQUEST_NEW_PAIRING_CODE",
              endpoint: "POST /admin/projects/{projectId}/pairing-codes",
              payloadHint: null,
              hint: "Ask a project admin (or your orchestrator, POST /pair/code) for a new pairing code",
            },
          },
        },
      },
    },
  },
  "POST /pair/code": {
    request: {
      agentName: "reviewer",
      role: "evaluator",
      platform: "claude-code",
    },
    responses: {
      201: {
        data: {
          code: "UDZX3HXR",
          expiresAt: "2026-11-27T00:01:58.198Z",
          ttlSeconds: 3600,
          "instructions":
            'Give this code to the new agent; it works once, within one hour (until 2026-11-27T00:01:58.198Z). The agent pairs with POST http://localhost:8787/api/pair/connect and body {"code":"UDZX3HXR"} (no Authorization header) and becomes "reviewer" (evaluator). Onboarding prompt to paste into the agent: GET http://localhost:8787/api/pair/prompt?code=UDZX3HXR',
        },
        meta: {
          callsRemaining: 14998,
        },
      },
      403: {
        error: {
          code: "FORBIDDEN",
          message: 'Cannot call POST /api/pair/code: missing scope "write:agents"',
          details: {
            requiredScope: "write:agents",
            recovery: {
              action: "REPAIR_OR_REFRESH",
              endpoint: "POST /pair/connect",
              payloadHint: {
                code: "<pairing code>",
              },
              hint: 'Pair again with a role whose token carries "write:agents", or use a key that has it',
            },
          },
        },
      },
    },
  },
  "GET /me": {
    responses: {
      200: {
        data: {
          agent: {
            id: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
            name: "builder",
            platform: "claude-code",
            model: "claude-sonnet-4-5",
            company: "Anthropic",
          },
          project: {
            id: "ddbad0b1-5cf5-4e24-b0eb-21aa5b397037",
            name: "Web",
            phase: "setup",
            subphase: "brief_missing",
          },
          org: {
            id: "38dfffb7-0696-4561-b4dd-01fa085ffef8",
            plan: "team",
          },
          scopes: [
            "read:brief",
            "read:ledger",
            "read:board",
          ],
          sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
          session: {
            id: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
            status: "active",
            startedAt: "2026-11-26T23:01:58.146Z",
          },
          role: "generator",
          plan: {
            tier: "team",
            callsRemaining: 14999,
            callsLimit: 15000,
          },
          cachedAt: 1795734118327,
        },
        meta: {
          callsRemaining: 14999,
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
  "POST /session/refresh": {
    request: {
      token: "svc_sess_FxaNcWJjE3j_sG6vark689eV7uXYcAirWeBFfOuTDpj",
    },
    responses: {
      200: {
        data: {
          sessionToken: "svc_sess_Pd9-th4U5lFjq4bkgDADQi1ReZ38HhF13LzZsvxUCTD",
          sessionId: "12af8f73-e5c1-46a2-b9b5-d484cc381e10",
          agent: {
            id: "ed52e4ca-ca03-4457-b33e-46c788f16c36",
            name: "scratch",
          },
          expiresAt: "2026-12-03T23:01:58.728Z",
          refreshMode: "live",
          nextAction: {
            action: "RELOAD_CONTEXT",
            endpoint: "GET /context",
            "message":
              "Use the new sessionToken from now on (the old one is revoked) and reload GET /context. Sub-agent tokens minted with the old token stopped working: mint them again.",
          },
        },
        meta: {},
      },
      401: {
        error: {
          code: "UNAUTHORIZED",
          message: "This session token cannot be refreshed; pair again with a new code",
          details: {
            recovery: {
              action: "REPAIR",
              endpoint: "POST /pair/connect",
              payloadHint: {
                code: "<pairing code>",
                agentName: "<your agent name>",
              },
              hint: "Ask a project admin or your orchestrator for a new pairing code and pair again",
            },
          },
        },
      },
    },
  },
  "PATCH /session/{sessionId}": {
    request: {
      plan: [
        {
          content: "Build the login form",
          status: "in_progress",
        },
        {
          content: "Write its tests",
          status: "pending",
        },
      ],
      expectedPlanVersion: 0,
    },
    responses: {
      200: {
        data: {
          id: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
          status: "active",
          startedAt: "2026-11-26T23:01:58.146Z",
          endedAt: null,
          plan: [
            {
              status: "in_progress",
              content: "Build the login form",
            },
            {
              status: "pending",
              content: "Write its tests",
            },
          ],
          planVersion: 1,
          agent: {
            id: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
            name: "builder",
            subAgentName: null,
          },
          source: "pairing",
          ticketId: null,
          environmentReport: null,
          reportedAt: null,
          activityCount: 0,
        },
        meta: {
          callsRemaining: 14997,
        },
      },
      409: {
        error: {
          code: "CONFLICT",
          message: "Plan version is 1; reload the session and retry",
          details: {
            currentPlanVersion: 1,
          },
        },
      },
    },
  },
  "POST /session/{sessionId}/activity": {
    request: {
      type: "action",
      action: "run_tests",
      parameter: "deno test src/login.test.ts",
      result: "6 passed",
    },
    responses: {
      201: {
        data: {
          activityId: "5a694bca-b5d5-4797-9929-c848cadb5bec",
          sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
          status: "active",
        },
        meta: {
          callsRemaining: 14993,
        },
      },
      404: {
        error: {
          code: "NOT_FOUND",
          message: "Session cb0067a7-ef1c-48a2-b54c-66484fe6a6f6 not found",
        },
      },
    },
  },
  "POST /session/{sessionId}/report": {
    request: {
      model: "claude-sonnet-4-5",
      platform: "claude-code",
      git_branch: "feat/login-form",
      git_remote: "git@github.com:acme/web.git",
      working_dir: "/home/dev/web",
      git_head: "4f2a9c1e",
      uncommitted_files: [
        "src/login.ts",
      ],
    },
    responses: {
      200: {
        data: {
          ok: true,
          sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
        },
        meta: {
          callsRemaining: 14989,
        },
      },
      404: {
        error: {
          code: "NOT_FOUND",
          message: "Session 36400788-1fed-4deb-bc73-4d779f427f7b not found",
        },
      },
    },
  },
  "GET /session/{sessionId}": {
    responses: {
      200: {
        data: {
          session: {
            id: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
            status: "active",
            startedAt: "2026-11-26T23:01:58.146Z",
            endedAt: null,
            plan: [
              {
                status: "in_progress",
                content: "Build the login form",
              },
              {
                status: "pending",
                content: "Write its tests",
              },
            ],
            planVersion: 1,
            agent: {
              id: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
              name: "builder",
              subAgentName: null,
            },
            source: "pairing",
            ticketId: null,
            environmentReport: {
              model: "claude-sonnet-4-5",
              git_head: "4f2a9c1e",
              platform: "claude-code",
              git_branch: "feat/login-form",
              git_remote: "git@github.com:acme/web.git",
              working_dir: "/home/dev/web",
              uncommitted_files: [
                "src/login.ts",
              ],
            },
            reportedAt: "2026-11-26T23:01:58.982Z",
            activityCount: 1,
          },
          activities: [
            {
              id: "5a694bca-b5d5-4797-9929-c848cadb5bec",
              type: "action",
              body: null,
              action: "run_tests",
              parameter: "deno test src/login.test.ts",
              result: "6 passed",
              ephemeral: false,
              createdAt: "2026-11-26T23:01:58.937Z",
            },
          ],
          pagination: {
            limit: 100,
            offset: 0,
            total: 1,
            hasMore: false,
          },
        },
        meta: {
          callsRemaining: 14986,
        },
      },
      404: {
        error: {
          code: "NOT_FOUND",
          message: "Session 6829707e-125d-49a3-aeea-126e94a7a5ea not found",
        },
      },
    },
  },
  "POST /subagent/session": {
    request: {
      name: "worker-1",
      role: "generator",
      ttlHours: 8,
    },
    responses: {
      201: {
        data: {
          subAgentToken: "svc_sub_pKqSLnnX3uWDa-4-WHr6epMcAuujZ3lcSqU7xf66Gd0",
          sessionId: "cab821fe-c2e4-49cc-b2e8-b25c89b9bd06",
          name: "worker-1",
          expiresAt: "2026-11-27T07:01:59.278Z",
          role: "generator",
          scopes: [
            "read:brief",
            "read:ledger",
            "read:board",
          ],
        },
        meta: {
          callsRemaining: 14996,
        },
      },
      422: {
        error: {
          code: "VALIDATION_ERROR",
          message: "A sub-agent cannot be an orchestrator",
          details: {
            fields: [
              {
                path: "role",
                message: "Use generator or evaluator",
                code: "invalid_value",
              },
            ],
          },
        },
      },
    },
  },
  "DELETE /subagent/session": {
    request: {
      name: "worker-1",
    },
    responses: {
      200: {
        data: {
          ok: true,
          name: "worker-1",
          completedSessionIds: [
            "cab821fe-c2e4-49cc-b2e8-b25c89b9bd06",
          ],
          revokedTokens: 1,
        },
        meta: {
          callsRemaining: 14992,
        },
      },
      404: {
        error: {
          code: "NOT_FOUND",
          message: 'No registered sub-agent named "worker-9"',
        },
      },
    },
  },
  "POST /session/complete": {
    request: {
      sessionId: "8443a809-e48b-4be6-8a34-d406da53e667",
    },
    responses: {
      200: {
        data: {
          ok: true,
          sessionId: "8443a809-e48b-4be6-8a34-d406da53e667",
        },
        meta: {
          callsRemaining: 14984,
        },
      },
      422: {
        error: {
          code: "PRECONDITION_FAILED",
          "message":
            'Cannot complete session "8443a809-e48b-4be6-8a34-d406da53e667": closeout outstanding (ticket_linked, progress_entry, environment_report, ticket_status)',
          details: {
            missing: [
              "ticket_linked",
              "progress_entry",
              "environment_report",
            ],
            completed: [
              "tested_entry",
              "no_blocked_entry",
            ],
            retryable: true,
            remediation: [
              {
                action: "BEGIN_TICKET",
                endpoint: "POST /begin",
                "message":
                  "Begin a ticket in this session, or close the session with POST /handoff without ticketId",
              },
              {
                action: "ADD_REQUIRED_FIELDS",
                endpoint: "POST /ledger",
                message:
                  "The session needs a PROGRESS or CHANGED entry: log what you did with POST /ledger (type PROGRESS)",
              },
              {
                action: "ADD_REQUIRED_FIELDS",
                endpoint: "POST /session/8443a809-e48b-4be6-8a34-d406da53e667/report",
                message: "The session needs an environment report: post it (model, platform, git branch...)",
              },
            ],
          },
        },
      },
    },
  },
};
