import type { OpenAPIHono } from "@hono/zod-openapi";
import { IssueListResponse, IssueQuery, SkillHeaders, SkillResponse } from "@/contracts/skill.ts";
import { readSkill } from "@/domain/context/skill.ts";
import { listIssues } from "@/domain/tickets/issues.ts";
import type { AppEnv } from "@/http/env.ts";
import { empty, ok } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";

export const skillRoute = defineRoute({
  method: "get",
  path: "/skill",
  tags: ["Context and brief"],
  summary: "The agent skill document",
  description:
    "Any valid token, no scope; costs 1 unit. The instructions an agent follows to work with the service " +
    "(Markdown), at the version that GET /context reports as `skillVersion`. When context says " +
    "`skillStale: true`, read this again and report the new `version` as `skill_hash` in your environment " +
    'report (POST /session/{sessionId}/report). The response carries `ETag: "<version>"`; a request with ' +
    "that value in `If-None-Match` answers 304 without a body while the document is unchanged.",
  request: { headers: SkillHeaders },
  responses: {
    200: { description: "The skill document", content: { "application/json": { schema: SkillResponse } } },
    304: { description: "Unchanged since the ETag sent in If-None-Match" },
  },
}, { cost: 1 });

export const issueRoute = defineRoute({
  method: "get",
  path: "/issue",
  tags: ["Tickets"],
  summary: "The project's issues (open tickets by default)",
  description:
    "Scope read:board (design: the spec shows no shape for this endpoint); costs 1 unit. The target of " +
    "`issuesUrl` (from POST /pair/connect): the project's " +
    "tickets as an issue tracker lists them, in number order. `state` `open` (default) is every board " +
    "column but `done` and `cancelled`, `closed` those two, `all` both. Filters `assigneeId` (UUID, `me` " +
    "or `none`) and `labels` (comma list of tags, all required). Cursor pagination as on GET /board: pass " +
    "`nextCursor` back unchanged as `cursor` with the same filters. Each issue carries its `key` (accepted " +
    "wherever a ticket id is), `url` (the whole ticket: GET /ticket?key=) and `nextAction`. GET /board " +
    "gives every ticket field, status counts and collision warnings.",
  request: { query: IssueQuery },
  responses: {
    200: {
      description: "One page of issues",
      content: { "application/json": { schema: IssueListResponse } },
    },
  },
}, { scope: "read:board", cost: 1 });

export function registerSkill(api: OpenAPIHono<AppEnv>): void {
  handle(api, skillRoute, async ({ c, ctx }) => {
    const skill = await readSkill(ctx.publicUrl);
    const etag = `"${skill.version}"`;
    const sent = c.req.header("if-none-match");
    if (sent && sent.split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) {
      return empty(c, 304, { ETag: etag });
    }
    c.header("ETag", etag);
    return ok(c, skill);
  });
  handle(api, issueRoute, async ({ c, ctx, query }) => ok(c, await listIssues(ctx, query)));
}
