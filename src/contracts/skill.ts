import { z } from "@hono/zod-openapi";
import { envelope } from "./common.ts";
import { BoardQuery, BoardRow } from "./tickets.ts";

// ---- GET /skill ----

export const SkillDocument = z.object({
  version: z.string().openapi({
    description: "Opaque; equals `skillVersion` of GET /context. Send it back as `skill_hash` in your " +
      "environment report so that `skillStale` tells you when it changes.",
    example: "skill-3f9a0c12be71",
  }),
  title: z.string().openapi({ example: "Working with the coordination service" }),
  mediaType: z.literal("text/markdown"),
  content: z.string().openapi({ description: "The whole document (Markdown)" }),
  totalChars: z.number().int().openapi({ description: "Length of `content` in Unicode code points" }),
  docsUrl: z.string().openapi({ description: "{origin}/docs: the full API reference" }),
}).openapi("SkillDocument");

export const SkillResponse = envelope(SkillDocument);

export const SkillHeaders = z.object({
  "if-none-match": z.string().max(200).optional().openapi({
    description: "The ETag of a previous answer: 304 without a body when the document has not changed",
  }),
});

// ---- GET /issue ----

export const ISSUE_STATES = ["open", "closed", "all"] as const;

export const IssueQuery = BoardQuery.pick({ assigneeId: true, cursor: true }).extend({
  state: z.enum(ISSUE_STATES).default("open").openapi({
    description: "`open` (default): every column but done and cancelled; `closed`: done and cancelled; `all`",
  }),
  labels: BoardQuery.shape.tags.openapi({
    description: "Comma list of tags; an issue matches only when it carries every listed tag",
  }),
  limit: z.coerce.number().int().min(1).max(100).default(50).openapi({ description: "1 to 100, default 50" }),
});

export const Issue = BoardRow.pick({
  id: true,
  number: true,
  title: true,
  status: true,
  type: true,
  priority: true,
  assignee: true,
  createdAt: true,
  updatedAt: true,
  nextAction: true,
}).extend({
  key: z.string().openapi({
    description: "The ticket key, accepted wherever a ticket id is",
    example: "WEB-12",
  }),
  state: z.enum(["open", "closed"]),
  labels: z.array(z.string()).openapi({ description: "The ticket's tags" }),
  url: z.string().openapi({ description: "{origin}/api/ticket?key=KEY: the whole ticket" }),
}).openapi("Issue");

export const IssueListResponse = envelope(
  z.object({
    issues: z.array(Issue),
    total: z.number().int().openapi({ description: "Matching issues across all pages" }),
    returned: z.number().int(),
    nextCursor: z.string().nullable().openapi({
      description: "Pass back unchanged as `cursor` with the same filters; null on the last page",
    }),
    boardUrl: z.string().openapi({ description: "{origin}/api/board: the board with every ticket field" }),
  }).openapi("IssueList"),
);
