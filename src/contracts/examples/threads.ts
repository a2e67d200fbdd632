import { ticketNotFound } from "./shared.ts";
import type { ExampleTable } from "./types.ts";

/**
 * Request and response examples of threads.
 * Recorded from a real run of the service (ids, tokens and times as it issues them; lists cut to three
 * items), then kept by hand. tests/openapi.test.ts validates each against its schema.
 */
export const threadExamples: ExampleTable = {
  "POST /thread": {
    request: {
      intent: "Move session cookies to SameSite=Lax",
      expectedFiles: [
        "src/session.ts",
      ],
      ticketId: "WEB-12",
    },
    responses: {
      201: {
        data: {
          id: "a8921644-9e28-4f7d-ac80-78da699492c9",
          createdAt: "2026-11-26T23:02:02.559Z",
        },
        meta: {
          callsRemaining: 14898,
        },
      },
      404: ticketNotFound,
    },
  },
  "POST /thread/{threadId}/reply": {
    request: {
      content: "Fine by me: the styles do not read the cookie",
    },
    responses: {
      201: {
        data: {
          id: "613353f6-c4c7-45e9-b82a-c2a356ffe58d",
          createdAt: "2026-11-26T23:02:02.625Z",
        },
        meta: {
          callsRemaining: 14988,
        },
      },
      404: {
        error: {
          code: "INVALID",
          message: 'Cannot reply: no thread "d0913198-6649-436a-909c-9b1a62786fe2" in this project',
          details: {
            threadId: "d0913198-6649-436a-909c-9b1a62786fe2",
          },
        },
      },
    },
  },
  "PATCH /thread/{threadId}": {
    request: {
      intent: "Move session cookies to SameSite=Lax and Secure",
    },
    responses: {
      200: {
        data: {
          ok: true,
          intent: "Move session cookies to SameSite=Lax and Secure",
          status: "open",
        },
        meta: {
          callsRemaining: 14894,
        },
      },
      404: {
        error: {
          code: "THREAD_NOT_FOUND",
          message: 'No thread "d5f381d6-3480-40ad-a9ed-87a22b79c38e" in this project',
          details: {
            threadId: "d5f381d6-3480-40ad-a9ed-87a22b79c38e",
          },
        },
      },
    },
  },
  "GET /thread/{threadId}": {
    responses: {
      200: {
        data: {
          id: "a8921644-9e28-4f7d-ac80-78da699492c9",
          agentId: "c98cd9df-f9ef-4b3c-a11e-281cf7ab62a8",
          agentName: "builder",
          subAgentName: null,
          intent: "Move session cookies to SameSite=Lax and Secure",
          expectedFiles: [
            "src/session.ts",
          ],
          ticketId: "a9cc49b7-709e-40f1-8c63-32ce857b1915",
          status: "open",
          outcome: null,
          createdAt: "2026-11-26T23:02:02.559Z",
          closedAt: null,
          lastMessageAt: "2026-11-26T23:02:02.625Z",
          messages: [
            {
              id: "613353f6-c4c7-45e9-b82a-c2a356ffe58d",
              authorType: "agent",
              authorId: "85d30361-4495-43fc-8896-1ddc1c123b3b",
              authorName: "styler",
              subAgentName: null,
              content: "Fine by me: the styles do not read the cookie",
              createdAt: "2026-11-26T23:02:02.625Z",
            },
          ],
        },
        meta: {
          callsRemaining: 14891,
        },
      },
      404: {
        error: {
          code: "THREAD_NOT_FOUND",
          message: 'No thread "df9fec11-a72b-420e-a5dc-790ede4efcdd" in this project',
          details: {
            threadId: "df9fec11-a72b-420e-a5dc-790ede4efcdd",
          },
        },
      },
    },
  },
  "POST /thread/{threadId}/close": {
    request: {
      outcome: "Agreed: SameSite=Lax and Secure",
    },
    responses: {
      200: {
        data: {
          ok: true,
        },
        meta: {
          callsRemaining: 14888,
        },
      },
      404: {
        error: {
          code: "INVALID",
          message: 'Cannot close: no thread "4e34ed8b-ea3f-4be0-9c11-ef7dfaf4940f" in this project',
          details: {
            threadId: "4e34ed8b-ea3f-4be0-9c11-ef7dfaf4940f",
          },
        },
      },
    },
  },
  "POST /thread/close-bulk": {
    request: {
      outcome: "Session over",
      mine: true,
    },
    responses: {
      200: {
        data: {
          closed: 1,
          threadIds: [
            "d541eaa0-4fa0-4557-9d82-ff35dbe4644b",
          ],
        },
        meta: {
          callsRemaining: 14982,
        },
      },
      400: {
        error: {
          code: "VALIDATION_ERROR",
          message: "Invalid outcome: Invalid input: expected string, received undefined",
          details: {
            target: "json",
            fields: [
              {
                path: "outcome",
                message: "Invalid input: expected string, received undefined",
                code: "invalid_type",
              },
            ],
          },
        },
      },
    },
  },
};
