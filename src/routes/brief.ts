import type { OpenAPIHono } from "@hono/zod-openapi";
import { BriefPatchBody, BriefPatchResponse } from "@/contracts/brief.ts";
import { errorResponses } from "@/contracts/common.ts";
import { patchBrief } from "@/domain/brief/patch.ts";
import type { AppEnv } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";

export const patchBriefRoute = defineRoute({
  method: "patch",
  path: "/brief",
  tags: ["Context and brief"],
  summary: "Write the project brief (shallow merge, new version)",
  description:
    "Shallow merge: each sent field (`scope`, `goals`, `stack`, `constraints`, `context`, `custom`) replaces " +
    "that field whole; omitted fields keep their values; unknown fields are refused (400). Each write creates " +
    "a new version (previous + 1; a never-written brief is version 0) and every earlier version is kept. " +
    "Response `{ version, patchedFields }`.\n\n" +
    "Who may write (checked by this endpoint, not by the route scope, because it depends on the stored " +
    "brief): a token whose scopes include `write:brief`, or whose scope list is empty, always; while the " +
    "brief is blank, also any token with `write:ticket` except sub-agents. Blank means no field has content: " +
    "every string empty or whitespace, every list without a non-blank item, `custom` without keys. " +
    "Sub-agents (`svc_sub_` tokens or `X-Svc-SubAgent`) never write the brief.\n\n" +
    "In context the brief is `{ version, content }`, `content` being the brief object serialized as compact " +
    "JSON with fields in the order scope, goals, stack, constraints, context, custom (fields never written " +
    "left out; a never-written brief is `{}` at version 0). There is no GET /brief.\n\n" +
    "Errors: 400 VALIDATION_ERROR (no brief field, wrong type, unknown field, size limits); 403 FORBIDDEN " +
    "(brief has content and no `write:brief`, sub-agent, or neither scope; recovery REPAIR_OR_REFRESH); " +
    "409 VERSION_CONFLICT (`expectedVersion` differs from the current version, or a concurrent write won: " +
    "`details.currentVersion`, `details.currentContent` (the current brief object); nothing written); 415; " +
    "429 ENDPOINT_RATE_LIMITED (more than 20 calls a minute or 200 an hour per agent, fixed windows; " +
    "`details.endpoint` `PATCH /brief`, `details.window` `minute` or `hour`, headers X-RateLimit-Endpoint, " +
    "X-RateLimit-Window, Retry-After).",
  request: { body: { required: true, content: { "application/json": { schema: BriefPatchBody } } } },
  responses: {
    200: { description: "Brief written", content: { "application/json": { schema: BriefPatchResponse } } },
    ...errorResponses(409),
  },
}, { cost: 2 });

export function registerBrief(api: OpenAPIHono<AppEnv>): void {
  handle(api, patchBriefRoute, async ({ c, body, ctx }) => ok(c, await patchBrief(ctx, body)));
}
