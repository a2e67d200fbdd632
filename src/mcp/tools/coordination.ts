/**
 * The claim coordination tools (extension, issue 24 point 7), listed only for the agents of a project whose
 * setting `mcpTools` is `coordination`; the spec's 15 tools (TOOLS) stay as they are. Each tool's input is
 * its route's own request schema, read off the route object (so a field the route gains, as POST /claim's
 * `waitSeconds`, reaches the tool unchanged), and each call goes through the route object (`callOf`).
 */
import { z } from "@hono/zod-openapi";
import type { ToolDefinition } from "../types.ts";
import { ADDITIVE, callOf, READ_ONLY, relay, updating } from "./shared.ts";
import { claimCheckRoute, claimRequestsRoute, claimRoute, releaseRoute } from "@/routes/claims.ts";
import { releaseRequestAnswerRoute, releaseRequestCreateRoute } from "@/routes/release-requests.ts";
import { sprintPlanRoute } from "@/routes/sprints.ts";
import { svcHandoffWithCoverage } from "./handoff.ts";

/** A route's JSON request body schema. */
const bodyOf = <S>(route: { request: { body: { content: { "application/json": { schema: S } } } } }) =>
  route.request.body.content["application/json"].schema;

const see = (route: { method: string; path: string }) =>
  ` Extension tool (issue 24): calls ${route.method.toUpperCase()} ${route.path}; the REST answer's data is the result.`;

const ClaimInput = bodyOf(claimRoute);
export const svcClaim: ToolDefinition<typeof ClaimInput> = {
  name: "svc_claim",
  title: "Claim files",
  description:
    "Claims files for your work, all or nothing (`files`, optional `ticketId`, `estimatedSeconds`, " +
    "`allowSubAgents`, `commitSha`, and `waitSeconds` where the service offers waiting: wait in line instead " +
    "of a refusal). A file held by someone else answers CONFLICT with the holders." + see(claimRoute),
  input: ClaimInput,
  annotations: updating(true),
  scope: "write",
  async run(args, forward) {
    return relay(await forward(callOf(claimRoute, { body: args })));
  },
};

const ClaimCheckInput = claimCheckRoute.request.query;
export const svcClaimCheck: ToolDefinition<typeof ClaimCheckInput> = {
  name: "svc_claim_check",
  title: "Check who holds files",
  description: "Who holds each file now: `files` is a comma-separated list of paths; each answers " +
    "`available`, or its `claimant`, `expiresAt` and status." + see(claimCheckRoute),
  input: ClaimCheckInput,
  annotations: READ_ONLY,
  scope: "read",
  async run(args, forward) {
    return relay(await forward(callOf(claimCheckRoute, { query: args })));
  },
};

const ClaimRequestsInput = claimRequestsRoute.request.query;
export const svcClaimRequests: ToolDefinition<typeof ClaimRequestsInput> = {
  name: "svc_claim_requests",
  title: "List your claim wait requests",
  description: "Your requests to wait for files (svc_claim with `waitSeconds`), newest first; `status` " +
    "(waiting, granted, expired, cancelled) filters. A granted request lists its claims." +
    see(claimRequestsRoute),
  input: ClaimRequestsInput,
  annotations: READ_ONLY,
  scope: "read",
  async run(args, forward) {
    return relay(await forward(callOf(claimRequestsRoute, { query: args })));
  },
};

const ReleaseInput = bodyOf(releaseRoute);
export const svcRelease: ToolDefinition<typeof ReleaseInput> = {
  name: "svc_release",
  title: "Release your claims",
  description: "Frees your claims: exactly one of `files` (every claim of yours that includes one of them) " +
    "or `all: true`. Waiting agents get the files next." + see(releaseRoute),
  input: ReleaseInput,
  annotations: updating(true),
  scope: "write",
  async run(args, forward) {
    return relay(await forward(callOf(releaseRoute, { body: args })));
  },
};

const ReleaseRequestInput = bodyOf(releaseRequestCreateRoute);
export const svcReleaseRequest: ToolDefinition<typeof ReleaseRequestInput> = {
  name: "svc_release_request",
  title: "Ask the holder of files to release them",
  description: "Asks the one agent that holds `files` to release them, with an optional `message`; it sees " +
    "the request in its context and answers with svc_release_answer. Result: the request " +
    "{ id, files, holder, status: pending, ... }; its answer arrives as the event claim.release_answered." +
    see(releaseRequestCreateRoute),
  input: ReleaseRequestInput,
  annotations: ADDITIVE,
  scope: "write",
  async run(args, forward) {
    return relay(await forward(callOf(releaseRequestCreateRoute, { body: args })));
  },
};

const ReleaseAnswerInput = z.object({
  ...releaseRequestAnswerRoute.request.params.shape,
  ...bodyOf(releaseRequestAnswerRoute).shape,
});
export const svcReleaseAnswer: ToolDefinition<typeof ReleaseAnswerInput> = {
  name: "svc_release_answer",
  title: "Answer a release request addressed to you",
  description: "Answers the release request `requestId` (listed in your context's releaseRequests): " +
    "`answer: release` frees exactly the requested files of your claims now, `decline` keeps them; optional " +
    "`message` for the asker." + see(releaseRequestAnswerRoute),
  input: ReleaseAnswerInput,
  annotations: updating(false),
  scope: "write",
  async run({ requestId, ...body }, forward) {
    return relay(await forward(callOf(releaseRequestAnswerRoute, { params: { requestId }, body })));
  },
};

const PlanInput = sprintPlanRoute.request.params;
export const svcPlan: ToolDefinition<typeof PlanInput> = {
  name: "svc_plan",
  title: "Plan a sprint's parallel work",
  description: "Which of the sprint `sprintId`'s open tickets can run at the same time: waves of tickets " +
    "whose expected files do not overlap (highest priority first), and the tickets whose files other agents " +
    "hold now (blockedByClaims)." + see(sprintPlanRoute),
  input: PlanInput,
  annotations: READ_ONLY,
  scope: "read",
  async run(args, forward) {
    return relay(await forward(callOf(sprintPlanRoute, { params: args })));
  },
};

/** The tools `mcpTools: coordination` adds after the spec's 15. */
export const COORDINATION_TOOLS: readonly ToolDefinition[] = [
  svcClaim,
  svcClaimCheck,
  svcRelease,
  svcClaimRequests,
  svcReleaseRequest,
  svcReleaseAnswer,
  svcPlan,
  svcHandoffWithCoverage,
] as unknown as readonly ToolDefinition[];
