import { z } from "@hono/zod-openapi";
import { ArtifactInput, HandoffBody, HandoffData } from "@/contracts/handoff.ts";
import type { ToolDefinition } from "../types.ts";
import { callOf, fieldsOf, relay, updating } from "./shared.ts";
import { handoffRoute } from "@/routes/handoff.ts";

const HandoffInput = z.object({
  ...fieldsOf(
    HandoffBody,
    "moduleName",
    "summary",
    "sessionId",
    "ticketId",
    "testResults",
    "diffStat",
    "toolResults",
  ),
  // MCP-071: { type, url, ref?, title? } (REST also takes metadata), at most 10.
  artifacts: z.array(ArtifactInput.pick({ type: true, url: true, ref: true, title: true })).max(10)
    .optional(),
});

export const svcHandoff: ToolDefinition<typeof HandoffInput> = {
  name: "svc_handoff",
  title: "Hand off work",
  description: "Finishes a unit of work (POST /handoff): `moduleName`, `summary` (up to 2000) and " +
    "`sessionId` required; `ticketId` (UUID or key) moves that ticket on to review (you must be its " +
    "assignee and it must be in progress); `testResults` (up to 500), `diffStat` (up to 500), " +
    "`toolResults` (raw tool outputs, logged as PROGRESS and TESTED entries), `artifacts` (up to 10, each " +
    "{ type: pull_request|branch|commit|deploy, url, ref?, title? }). Generators only. Ends the session.",
  input: HandoffInput,
  output: HandoffData,
  annotations: updating(true),
  scope: "write",
  async run(args, forward) {
    return relay(await forward(callOf(handoffRoute, { body: args })));
  },
};

/**
 * `svc_handoff` of the coordination tool set (issue 25): the spec's tool plus `changedFiles` (paths or
 * `{ file, fence }`), whose coverage by the session's claims the answer reports.
 */
const CoordinationHandoffInput = HandoffInput.extend(fieldsOf(HandoffBody, "changedFiles"));
export const svcHandoffWithCoverage: ToolDefinition<typeof CoordinationHandoffInput> = {
  ...svcHandoff,
  description: svcHandoff.description +
    " Extension: `changedFiles` (paths or { file, fence }) are compared with the files your session held; " +
    "the answer's `coverage` lists the uncovered ones.",
  input: CoordinationHandoffInput,
};
