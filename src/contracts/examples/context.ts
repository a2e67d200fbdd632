import { progressEntry, testedEntry } from "./shared.ts";
import type { ExampleTable } from "./types.ts";

/**
 * Request and response examples of context, brief, skill and events.
 * Recorded from a real run of the service (ids, tokens and times as it issues them; lists cut to three
 * items), then kept by hand. tests/openapi.test.ts validates each against its schema.
 */
export const contextExamples: ExampleTable = {
  "PATCH /brief": {
    request: {
      scope: "The Acme web app: sign-in, account settings and the billing pages",
      goals: [
        "Users can sign in with email and password",
        "Sessions survive a reload",
      ],
      stack: [
        "Deno 2",
        "Hono",
        "PostgreSQL",
      ],
      expectedVersion: 0,
    },
    responses: {
      200: {
        data: {
          version: 1,
          patchedFields: [
            "scope",
            "goals",
            "stack",
          ],
        },
        meta: {
          callsRemaining: 14980,
        },
      },
      403: {
        error: {
          code: "FORBIDDEN",
          message: 'The brief already has content: changing it needs scope "write:brief"',
          details: {
            requiredScope: "write:brief",
            briefBlank: false,
            recovery: {
              action: "REPAIR_OR_REFRESH",
              endpoint: "PATCH /brief",
              payloadHint: null,
              "hint":
                "Use a key that carries write:brief (ask a project admin), or ask its holder to make the change",
            },
          },
        },
      },
    },
  },
  "GET /skill": {
    responses: {
      200: {
        data: {
          version: "skill-94aceb820f4d",
          title: "Working with the coordination service",
          mediaType: "text/markdown",
          "content":
            "# Working with the coordination service\n1. GET /api/context first: brief, claims, threads, your active ticket and what to do next.\n2. POST /api/begin with a ticket and its files: claims the files and starts the ticket.\n3. Log as you go: POST /api/ledger (PROGRESS, DECISION, TESTED...). Silence over 15 minutes while holding\n   work blocks other writes with 429 LEDGER_STALE.\n4. POST /api/handoff when done: releases your claims and moves the ticket to review.\nNever edit a file another agent has claimed: check with GET /api/claim/check.",
          totalChars: 538,
          docsUrl: "http://localhost:8787/docs",
        },
        meta: {
          callsRemaining: 14955,
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
  "GET /context": {
    responses: {
      200: {
        data: {
          resume: {
            activeTicket: {
              id: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
              ticketRef: "WEB-12",
              title: "Login form",
              status: "in_progress",
              expectedFiles: [
                "src/login.ts",
                "src/login.test.ts",
              ],
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
              criteriaAcknowledged: true,
              doneDefinition: "A user can sign in with email and password",
              verificationCommand: "deno test src/login.test.ts",
              riskClass: "local",
              outOfScope: null,
              branch: "feat/login-form",
              subAgentName: null,
            },
            nextAction: {
              action: "RESUME_WORK",
              message: "Resume WEB-12 (in_progress): Login form",
            },
          },
          agent: {
            id: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
            name: "builder",
            platform: "claude-code",
            model: "claude-sonnet-4-5",
            company: "Anthropic",
            role: "generator",
            subAgentName: null,
            capabilities: [],
          },
          project: {
            id: "ddbad0b1-5cf5-4e24-b0eb-21aa5b397037",
            name: "Web",
            phase: "building",
            moduleCount: 12,
            modulesDone: 0,
          },
          brief: {
            version: 1,
            "content":
              '{"scope":"The Acme web app: sign-in, account settings and the billing pages","goals":["Users can sign in with email and password","Sessions survive a reload"],"stack":["Deno 2","Hono","PostgreSQL"]}',
          },
          briefTruncated: false,
          briefFetchUrl: null,
          openClaims: {
            count: 2,
            ticketIds: [
              "a9cc49b7-709e-40f1-8c63-32ce857b1915",
            ],
          },
          expiredClaims: [],
          expiringClaims: [],
          conflictRisk: {
            level: "none",
            files: [],
          },
          collisionWarnings: [],
          ledger: [
            testedEntry,
            progressEntry,
            {
              id: "ca17a6a4-df83-4744-a01b-e775639a990d",
              type: "DECISION",
              content: "Passwords are checked with scrypt; the hash parameters live in config",
              source: "agent",
              audit: false,
              agentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
              agentName: "builder",
              subAgentName: null,
              sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
              ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
              threadId: null,
              fileRef: "src/login.ts",
              lineRef: 42,
              labels: [],
              payload: {
                rationale: "scrypt is in the standard library and memory-hard",
                alternatives: [
                  "bcrypt",
                ],
              },
              severity: null,
              createdAt: "2026-11-26T23:02:02.373Z",
            },
          ],
          ledgerCursor: null,
          threads: {
            count: 0,
            ids: [],
          },
          updates: [],
          pendingActions: [],
          hasBlockingActions: false,
          yourReviews: [],
          pendingReviews: {
            count: 0,
            ticketIds: [],
          },
          pendingReviewsTotal: 0,
          pendingReviewsCursor: null,
          workqueue: [],
          boardSummary: {
            total: 12,
            byStatus: {
              backlog: 11,
              in_progress: 1,
            },
            columns: [
              "backlog",
              "claimed",
              "in_progress",
            ],
            inReview: 0,
            unassignedReady: 0,
          },
          activeSession: {
            id: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
            status: "active",
            startedAt: "2026-11-26T23:01:58.146Z",
            source: "pairing",
            ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
            planVersion: 1,
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
            reportedAt: "2026-11-26T23:01:58.982Z",
          },
          connectedAgents: [
            {
              agentId: "85d30361-4495-43fc-8896-1ddc1c123b3b",
              name: "styler",
              role: "generator",
              platform: "claude-code",
              subAgentName: null,
              sessionId: "2f1e98a2-fb45-499a-a0a7-4f97ed4eced7",
              since: "2026-11-26T23:02:01.826Z",
              isSelf: false,
            },
            {
              agentId: "ed52e4ca-ca03-4457-b33e-46c788f16c36",
              name: "scratch",
              role: "generator",
              platform: "claude-code",
              subAgentName: null,
              sessionId: "12af8f73-e5c1-46a2-b9b5-d484cc381e10",
              since: "2026-11-26T23:01:58.526Z",
              isSelf: false,
            },
            {
              agentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
              name: "builder",
              role: "generator",
              platform: "claude-code",
              subAgentName: null,
              sessionId: "b9f09825-a406-4f0c-87ce-7ade8a88c067",
              since: "2026-11-26T23:01:58.146Z",
              isSelf: true,
            },
          ],
          reviewConfig: {
            mode: "medium",
            reviewStatus: "review",
            criteriaAckRequired: true,
            testedEntryRequired: true,
            directDoneAllowed: false,
          },
          guidance: [
            "Resume your active ticket: work only on its expected files, log PROGRESS as you go, TESTED with the verification command, then POST /handoff.",
            "Log a ledger entry at least every 15 minutes while you hold claims or an in-progress ticket.",
            "Never edit a file another agent has claimed (openClaims, GET /claim/check); open a thread instead.",
          ],
          nextAction: {
            action: "RESUME_WORK",
            message: "Resume WEB-12 (in_progress): Login form",
          },
          isFirstSession: true,
          complianceScore: 100,
          envHealth: {
            status: "unknown",
            notes: [],
            reportedAt: null,
          },
          repoMismatch: {
            mismatch: false,
            expectedBranch: "feat/login-form",
            reportedBranch: "feat/login-form",
            reportedRemote: "git@github.com:acme/web.git",
          },
          skillVersion: "skill-94aceb820f4d",
          skillStale: false,
          schema: {
            openapiUrl: "http://localhost:8787/openapi.json",
            docsUrl: "http://localhost:8787/docs",
          },
          pollingHint: {
            endpoint: "GET /events",
            url: "http://localhost:8787/api/events?since=ZXYxLmQyMzVjNjA5LjY2",
            cursor: "ZXYxLmQyMzVjNjA5LjY2",
            intervalSeconds: 10,
          },
          documents: [
            {
              id: "skill",
              kind: "skill",
              title: "Working with the coordination service",
              url: "http://localhost:8787/docs",
              contentText: null,
              totalChars: 538,
              truncated: false,
            },
          ],
          mcpUrl: "http://localhost:8787/mcp",
        },
        meta: {
          callsRemaining: 14879,
          responseBytes: 8057,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: "Invalid ledger_limit: Too big: expected number to be <=100",
          details: {
            target: "query",
            fields: [
              {
                path: "ledger_limit",
                message: "Too big: expected number to be <=100",
                code: "too_big",
              },
            ],
          },
        },
      },
    },
  },
  "GET /context/more": {
    responses: {
      200: {
        data: {
          section: "ledger",
          rows: [
            testedEntry,
            progressEntry,
          ],
          hasMore: true,
          "nextCursor":
            "eyJzIjoibGVkZ2VyIiwiZiI6eyJzb3VyY2UiOiJhZ2VudCIsImluY2x1ZGVBdWRpdCI6ZmFsc2V9LCJiIjoxM30",
        },
        meta: {
          callsRemaining: 14875,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: 'Invalid section: Invalid option: expected one of "ledger"|"threads"|"brief"|"reviews"',
          details: {
            target: "query",
            fields: [
              {
                path: "section",
                message: 'Invalid option: expected one of "ledger"|"threads"|"brief"|"reviews"',
                code: "invalid_value",
              },
            ],
          },
        },
      },
    },
  },
  "GET /events": {
    responses: {
      200: {
        data: {
          events: [
            {
              seq: 1,
              kind: "session.opened",
              entityType: "session",
              entityId: "9b5b6bd6-058f-4d92-8cb7-349d8bd1732a",
              agentId: "dbece4ea-d293-4a94-b183-a9eb073465b8",
              data: {
                source: "pairing",
                subAgentName: null,
              },
              createdAt: "2026-11-26T23:01:58.040Z",
            },
            {
              seq: 2,
              kind: "ledger.appended",
              entityType: "ledger_entry",
              entityId: "82e7ddc9-5f0b-4a7f-9d02-b20055d1ce91",
              agentId: "dbece4ea-d293-4a94-b183-a9eb073465b8",
              data: {
                type: "AGENT_JOINED",
                source: "system",
                ticketId: null,
              },
              createdAt: "2026-11-26T23:01:58.040Z",
            },
          ],
          nextCursor: "ZXYxLmQyMzVjNjA5LjI",
          hasMore: true,
        },
        meta: {
          callsRemaining: 14873,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: "Invalid limit: Too small: expected number to be >=1",
          details: {
            target: "query",
            fields: [
              {
                path: "limit",
                message: "Too small: expected number to be >=1",
                code: "too_small",
              },
            ],
          },
        },
      },
    },
  },
};
