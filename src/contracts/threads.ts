import { z } from "@hono/zod-openapi";
import { filePathList } from "./file-path.ts";
import { envelope } from "./common.ts";
import { THREAD_STATUSES } from "@/shared/vocabulary.ts";

/** A thread's status; narrower or wider views derive from it. */
export const ThreadStatusSchema = z.enum(THREAD_STATUSES);

export const ThreadIdParams = z.object({
  threadId: z.string().uuid().openapi({
    param: { name: "threadId", in: "path" },
    description: "Thread UUID; anything else answers 400 VALIDATION_ERROR",
  }),
});

const TicketRef = z.string().min(1).max(64).openapi({
  description: "Ticket UUID or `<PREFIX>-<number>` key of this project",
  example: "WEB-12",
});

export const ThreadOpenBody = z.object({
  intent: z.string().min(1).max(1000).openapi({ description: "What the thread is about (1 to 1000)" }),
  expectedFiles: filePathList(0, 50, "Up to 50 paths the conversation concerns").optional(),
  ticketId: TicketRef.optional(),
}).openapi("ThreadOpenRequest");

export const ThreadReplyBody = z.object({
  content: z.string().min(1).max(4000).openapi({
    description: '1 to 4000 characters. `@name` or `@"name with spaces"` mentions an agent of the project ' +
      "or a project member's user name (case-insensitive) and notifies them",
  }),
}).openapi("ThreadReplyRequest");

export const ThreadPatchBody = z.object({
  intent: z.string().min(1).max(500).optional().openapi({ description: "1 to 500" }),
  status: ThreadStatusSchema.optional().openapi({
    description: "`closed` closes without recording an outcome; `open` reopens a closed thread",
  }),
}).refine((b) => b.intent !== undefined || b.status !== undefined, {
  message: "Send intent, status or both",
  path: [],
}).openapi("ThreadPatchRequest");

export const ThreadCloseBody = z.object({
  outcome: z.string().min(1).max(2000).openapi({ description: "What was decided (1 to 2000)" }),
}).openapi("ThreadCloseRequest");

export const ThreadCloseBulkBody = z.object({
  outcome: z.string().min(1).max(2000),
  mine: z.boolean().optional().openapi({ description: "Only threads you opened" }),
  agentId: z.string().uuid().optional().openapi({
    description: "Only threads opened by this agent; non-orchestrators may pass only their own id",
  }),
  subAgentName: z.string().min(1).max(64).optional().openapi({
    description: "Only threads opened by this sub-agent name (narrows the other filters)",
  }),
}).openapi("ThreadCloseBulkRequest");

export const ThreadMessage = z.object({
  id: z.string().uuid(),
  authorType: z.string().openapi({
    description: "`agent` for agents; `system` for service-written messages",
  }),
  authorId: z.string().nullable(),
  authorName: z.string().nullable().openapi({ description: "Agent name; falls back to authorId for others" }),
  subAgentName: z.string().nullable(),
  content: z.string(),
  createdAt: z.string(),
}).openapi("ThreadMessage");

/** A thread without its messages; context's views of threads derive from it. */
export const ThreadSummary = z.object({
  id: z.string(),
  agentId: z.string().nullable(),
  agentName: z.string().nullable(),
  subAgentName: z.string().nullable(),
  intent: z.string(),
  expectedFiles: z.array(z.string()),
  ticketId: z.string().nullable(),
  status: ThreadStatusSchema,
  outcome: z.string().nullable(),
  createdAt: z.string(),
  closedAt: z.string().nullable(),
  lastMessageAt: z.string().nullable(),
});

export const Thread = ThreadSummary.extend({
  id: z.string().uuid(),
  messages: z.array(ThreadMessage).openapi({ description: "Oldest first" }),
}).openapi("Thread");

export const Created = z.object({ id: z.string().uuid(), createdAt: z.string() });

export const ThreadCreatedResponse = envelope(Created.openapi("ThreadCreated"));
export const ThreadResponse = envelope(Thread);
export const ThreadPatchResponse = envelope(
  z.object({ ok: z.boolean(), intent: z.string(), status: ThreadStatusSchema }).openapi(
    "ThreadPatchResult",
  ),
);
export const ThreadCloseResponse = envelope(
  z.object({ ok: z.literal(true) }).openapi("ThreadCloseResult"),
);
export const ThreadCloseBulkResponse = envelope(
  z.object({
    closed: z.number().int(),
    threadIds: z.array(z.string().uuid()),
  }).openapi("ThreadCloseBulkResult"),
);
