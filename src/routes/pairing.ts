import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { clientAddress } from "@/http/client-address.ts";
import {
  ConnectBody,
  ConnectResponse,
  PairCodeRequest,
  PairCodeResponse,
  PairPromptQuery,
} from "@/contracts/pairing.ts";
import { errorResponses, ErrorSchema, PAIRING_MAX_BODY_BYTES } from "@/contracts/common.ts";
import { connect } from "@/domain/pairing/connect.ts";
import { mintOrchestratorCode } from "@/domain/pairing/orchestrator-code.ts";
import { pairingPrompt, PROMPT_LOOKUPS_PER_IP } from "@/domain/pairing/prompt.ts";
import type { AppEnv } from "@/http/env.ts";
import { serviceCtx } from "@/http/env.ts";
import { ok, textReply } from "@/http/envelope.ts";
import { defineRoute, handle, handlePublic } from "@/http/route.ts";

export const pairConnectRoute = defineRoute({
  method: "post",
  path: "/pair/connect",
  tags: ["Pairing and sessions"],
  summary: "Pair an agent with a code and get a session token",
  description:
    `No Authorization header. Body at most ${PAIRING_MAX_BODY_BYTES / 1024} KB (413 PAYLOAD_TOO_LARGE). ` +
    "Errors: 400 BAD_REQUEST; " +
    "401 INVALID_CODE, PASSWORD_REQUIRED; 403 INVALID_PASSWORD (code not consumed), PROJECT_INACTIVE, " +
    "ORG_SUSPENDED, AGENT_REVOKED, AGENT_LIMIT; 404 PROJECT_NOT_FOUND, ORG_NOT_FOUND, AGENT_NOT_FOUND; " +
    "429 RATE_LIMITED (10 attempts per 5 minutes per IP); 503 SERVICE_UNAVAILABLE (recovery RETRY_LATER). " +
    "A wrong password or a used code presented by another agent is a strike against the code; three " +
    "strikes invalidate it (unknown codes cannot be struck: there is nothing to count against). The agent " +
    "that consumed a code may present it again within one hour of first use (status reconnected); it is " +
    "recognised by its agent name (case-insensitive), or always when the code was issued for an existing " +
    "agent. INVALID_CODE and AGENT_REVOKED carry recovery REQUEST_NEW_PAIRING_CODE: they are the refusals " +
    "a new code resolves. Agent limits per project: free 10, builder 25, growth 100, team 500, enterprise " +
    "unlimited (revoked agents do not count). When the code names a platform or model (orchestrator or " +
    "admin codes), those win over the body's. Pairing completes the agent's open sessions and revokes " +
    "their tokens.",
  request: { body: { required: true, content: { "application/json": { schema: ConnectBody } } } },
  responses: {
    200: { description: "Paired", content: { "application/json": { schema: ConnectResponse } } },
    ...errorResponses(401, 403, 404, 503),
  },
}, { auth: "none", cost: 2, invalidCode: "BAD_REQUEST" });

export const pairCodeRoute = defineRoute({
  method: "post",
  path: "/pair/code",
  tags: ["Pairing and sessions"],
  summary: "Mint a one-hour pairing code for a new agent (orchestrators)",
  description:
    "Orchestrator role and scope write:agents (403 FORBIDDEN otherwise). The code pairs an agent in the " +
    "caller's project with the given agentName, role (generator default, evaluator or observer; anything " +
    "else 400 VALIDATION_ERROR) and, when given, platform and model. Valid one hour (ttlSeconds 3600), " +
    "single use. 409 CONFLICT when agentName belongs to an orchestrator of the project.",
  request: { body: { required: true, content: { "application/json": { schema: PairCodeRequest } } } },
  responses: {
    201: { description: "Code minted", content: { "application/json": { schema: PairCodeResponse } } },
    ...errorResponses(409),
  },
}, { scope: "write:agents", roles: ["orchestrator"], cost: 2 });

const text = (description: string) => ({ description, content: { "text/plain": { schema: z.string() } } });

export const pairPromptRoute = defineRoute({
  method: "get",
  path: "/pair/prompt",
  tags: ["Pairing and sessions"],
  summary: "Onboarding prompt for a pairing code (text/plain)",
  description:
    "No Authorization header. The route answers in text/plain. 200: a prompt to paste into the agent: the " +
    "project, the exact POST /pair/connect call (with a password placeholder when the project has one), " +
    "how to send the session token, and the work loop. 400 when code is missing or repeated. 404 with one fixed text " +
    "when the code is unknown, expired, invalidated, or used and past its one-hour reuse window (the " +
    "project is never revealed). 429 (Retry-After) beyond " + PROMPT_LOOKUPS_PER_IP + " look-ups per " +
    "5 minutes per address. Reading the prompt neither consumes the code nor counts as a strike.",
  request: { query: PairPromptQuery },
  responses: {
    200: text("The onboarding prompt"),
    400: {
      description: "Missing or repeated code (text/plain); text the service cannot store, a NUL or a lone " +
        "surrogate, is refused before the route as JSON VALIDATION_ERROR",
      content: { "text/plain": { schema: z.string() }, "application/json": { schema: ErrorSchema } },
    },
    404: text("Unknown or expired code"),
    429: text("Too many look-ups; read Retry-After"),
  },
}, { auth: "none", cost: 1 });

export function registerPairing(api: OpenAPIHono<AppEnv>): void {
  handlePublic(api, pairConnectRoute, async ({ c, body }) => {
    return ok(c, await connect(serviceCtx(c.get("deps")), body, clientAddress(c)));
  });
  handle(api, pairCodeRoute, async ({ c, ctx, body }) => ok(c, await mintOrchestratorCode(ctx, body), 201));
  handlePublic(api, pairPromptRoute, async ({ c, query }) => {
    const code = query.code?.trim();
    if (!code) {
      return textReply(
        c,
        "Missing code. Use GET /api/pair/prompt?code=<pairing code>; ask a project admin or your " +
          "orchestrator for a code.\n",
        400,
      );
    }
    const answer = await pairingPrompt(serviceCtx(c.get("deps")), code, clientAddress(c));
    if (answer.retryAfterSeconds !== undefined) c.header("Retry-After", String(answer.retryAfterSeconds));
    return textReply(c, answer.text, answer.status);
  }, (result, c) => {
    // Every answer of this route is text/plain, its validation failures too (a repeated `code`).
    if (result.success) return undefined;
    return c.text(
      "Invalid query: send one code. Use GET /api/pair/prompt?code=<pairing code>; ask a project admin or " +
        "your orchestrator for a code.\n",
      400,
    );
  });
}
