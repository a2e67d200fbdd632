import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import {
  ClaimBody,
  ClaimCheckQuery,
  ClaimCheckResponse,
  ClaimConflictError,
  ClaimDeadlockError,
  ClaimQueueFullError,
  ClaimRequestParams,
  ClaimRequestResponse,
  ClaimRequestsQuery,
  ClaimRequestsResponse,
  ClaimResponse,
  ClaimVerifyBody,
  ClaimVerifyResponse,
  ClaimWaitResponse,
  MAX_CLAIM_FILES,
  MAX_ESTIMATED_SECONDS,
  MAX_VERIFY_FILES,
  MAX_WAIT_SECONDS,
  ReleaseBody,
  ReleaseResponse,
} from "@/contracts/claims.ts";
import { errorResponses, json } from "@/contracts/common.ts";
import { CLAIM_ENTRIES_DOC } from "@/contracts/file-path.ts";
import { MAX_WAITING_PER_AGENT, MAX_WAITING_PER_FILE } from "@/domain/claims/wait.ts";
import { cancelClaimRequest, getClaimRequest, listClaimRequests } from "@/domain/claims/requests.ts";
import { CLAIM_GRACE_MS, DEFAULT_CLAIM_MS, STALE_CLAIM_MS } from "@/domain/core/claim-policy.ts";
import { BACKPRESSURE } from "@/domain/ledger/backpressure.ts";
import { checkClaims, claimFiles, releaseOwnClaims } from "@/domain/claims/verbs.ts";
import { verifyClaims } from "@/domain/claims/verify.ts";
import type { AppEnv } from "@/http/env.ts";
import { ok } from "@/http/envelope.ts";
import { defineRoute, handle } from "@/http/route.ts";

const minutes = (ms: number) => ms / 60_000;
/** "45 claim calls in 5 minutes": a per-action budget as the descriptions state it. */
const budget = (name: "claim" | "release") =>
  `${BACKPRESSURE[name].limit} ${BACKPRESSURE[name].label} in ${
    minutes(BACKPRESSURE[name].windowMs)
  } minutes`;

/** POST /claim's description of the wait queue (issue 24 points 1, 2, 4; an extension of the spec). */
const WAIT_DESCRIPTION = "\n\nWait queue (extension): with `waitSeconds` (integer 1 to " +
  `${MAX_WAIT_SECONDS}; otherwise 400 VALIDATION_ERROR) a request that meets a file held by another identity, ` +
  "or one other agents already wait for, answers 202 with `data.request` { id, files, status `waiting`, " +
  "position { file: requests ahead, 0 = next }, holders { file: claimantName }, createdAt, expiresAt } and " +
  "nextAction WAIT_FOR_GRANT; nothing is claimed until every file can be granted together. Do not poll: the " +
  "service grants the claim itself, in arrival order per file, in the same transaction as the release, " +
  "handoff, revocation or cancellation that frees the files, and within 2 seconds of a claim's expiry: the " +
  "claim is created as if you had called POST /claim then (CONTEXT entry, `claim.acquired`) plus an event " +
  "`claim.granted` { requestId, files, agentId }; GET /context lists it in `claims.granted[]`, GET " +
  "/claim/requests/{id} answers status `granted` with the claims. Not granted by expiresAt: `expired` " +
  "(event `claim.wait_expired`). When every file is free and unqueued, the claim is made at once (200). " +
  "Fair order: a file with waiters is never granted to a later request, and a POST /claim without " +
  "waitSeconds on it answers 409 CONFLICT with `details.queue.waiting`. Limits: at most " +
  `${MAX_WAITING_PER_AGENT} waiting requests per identity (agent or sub-agent) and ${MAX_WAITING_PER_FILE} ` +
  "per file: 409 QUEUE_FULL (details limit, scope `agent` or `file`, recovery RETRY_LATER). No deadlocks: a " +
  "wait that would close a wait-for cycle of any length (you wait for holders and earlier waiters of your " +
  "files; sub-agents are their own identities) is refused with 409 DEADLOCK, `details.cycle[]` { " +
  "claimantName, holds, waitsFor } from you round the cycle (your entry's waitsFor lists this request's " +
  "files) and `details.recovery` { action: RELEASE_HELD_FILES (extension of the spec's actions), endpoint " +
  "POST /release, payloadHint }: release what you hold, then wait. The check runs under the project's " +
  "claim lock, so two racing waits cannot both close a cycle.";

export const claimRoute = defineRoute({
  method: "post",
  path: "/claim",
  tags: ["Claims"],
  summary: "Claim files (locks) for your work",
  description:
    "Scope write:claim, generator role: generators only (other roles: 403 FORBIDDEN with details.guidance, " +
    "requiredRole, actualRole; orchestrators also get recovery MINT_SUBAGENT_SESSION). One live " +
    "holder per file, enforced by the database. All or nothing: when any requested file is held by someone " +
    "else nothing is claimed and the answer is 409 CONFLICT with details.conflicts[] (file, claimantName, " +
    "claimedAt, expiresAt, claimAgeMinutes, isStale, status, warning, recovery). Conflict recovery.action: " +
    "`release` when the holder is your own agent under another identity (your parent without allowSubAgents, " +
    "your sub-agent, or a sibling sub-agent; the hint names it): that identity releases it; `wait_or_contact` when " +
    `the claim is stale (older than ${
      minutes(STALE_CLAIM_MS)
    } minutes): it is never taken over, so wait for its expiry or ask the holder in a ` +
    "thread; `wait` for a " +
    "fresh claim or one in its grace period (status `grace_period`). A claim that races a concurrent claim " +
    "or whose renewal races a release is also 409 CONFLICT. Your own identity never conflicts with itself: " +
    "concurrent claims of yours that share files all succeed (the later ones renew the shared files), on " +
    "every instance of the service.\n\n" +
    "Paths (extension for case-insensitive file systems): paths that differ only in letter case are one " +
    "file (`SRC/A.ts` and `src/a.ts`); a claim stores the spelling you gave, a file held under another " +
    "spelling conflicts as any held file (the conflict item carries the spelling you sent, its warning the " +
    "one it is held under), a re-claim under another spelling renews it and the answer shows the held " +
    "spelling; spellings of one file in one request count once. A path with an invisible format character " +
    "(Unicode category Cf: U+200B, U+FEFF, U+202E ...) answers 400 VALIDATION_ERROR like other invalid " +
    "paths.\n\n" +
    `${CLAIM_ENTRIES_DOC}\n\n` +
    `Expiry: \`estimatedSeconds\` (positive integer up to ${MAX_ESTIMATED_SECONDS}) sets expiresAt = now + ` +
    `estimatedSeconds; without it a first claim and a re-claim expire ${
      minutes(DEFAULT_CLAIM_MS)
    } minutes ahead. ` +
    "Expired claims stop counting. " +
    "Re-claiming files you hold renews their whole claims (`idempotent` and `renewed` when you held every " +
    "file). A sub-agent whose parent holds a file with allowSubAgents works under it (`inherited`). " +
    "Grace period: when the session that made a claim ends without releasing it, the claim stays held for " +
    `${minutes(CLAIM_GRACE_MS)} minutes; the same agent (new session) claiming those files gets it back ` +
    "(`restored`), others get 409 " +
    `with status \`grace_period\`; after ${
      minutes(CLAIM_GRACE_MS)
    } minutes it stops counting. Claim record ` +
    "fields: file, claimedAt, " +
    "expiresAt, ticket, commitSha, allowSubAgents, owning agent and sub-agent, session, releasedAt. " +
    "Each claim writes a CONTEXT ledger entry (source system) and a `claim.acquired` event. " +
    "ticketId that does not resolve: 404 TICKET_NOT_FOUND (recovery RESOLVE_TICKET_REF). " +
    `429 BACKPRESSURE over ${budget("claim")} per agent (sub-agents have their own budget); ` +
    "429 LEDGER_STALE when you hold claims or an in-progress ticket and have not logged for too long." +
    WAIT_DESCRIPTION,
  request: { body: { required: true, content: { "application/json": { schema: ClaimBody } } } },
  responses: {
    200: { description: "Claimed", content: { "application/json": { schema: ClaimResponse } } },
    202: {
      description:
        "(extension) With `waitSeconds`: a requested file is held or queued; you wait in its queue " +
        "(`data.request`, status `waiting`) and the service grants the claim itself",
      content: { "application/json": { schema: ClaimWaitResponse } },
    },
    ...errorResponses(404),
    409: {
      description: "CONFLICT: a requested file is held by someone else (or, extension, other agents wait " +
        "for it); nothing was claimed. Extensions with `waitSeconds`: DEADLOCK (the wait would close a " +
        "wait-for cycle; recovery RELEASE_HELD_FILES) and QUEUE_FULL (a queue limit)",
      content: {
        "application/json": {
          schema: z.union([ClaimConflictError, ClaimDeadlockError, ClaimQueueFullError]),
        },
      },
    },
  },
}, { scope: "write:claim", roles: ["generator"], cost: 2 });

export const claimCheckRoute = defineRoute({
  method: "get",
  path: "/claim/check",
  tags: ["Claims"],
  summary: "Check who holds files",
  description:
    `Scope read:board. Query \`files\`: comma-separated, 1 to ${MAX_CLAIM_FILES} paths (missing, empty or more ` +
    `than ${MAX_CLAIM_FILES}: 400). A file is ` +
    "`available` when no live claim holds it (expired claims and claims past their grace period do not " +
    "count); otherwise `claimant` (`agentName` or `agentName/subAgentName`), `isSelf`, `isStale` (older " +
    `than ${minutes(STALE_CLAIM_MS)} minutes),` +
    " `claimedAt`, `expiresAt` and `status` (`active` or `grace_period`). Letter case is " +
    "ignored, as by POST /claim: a file held as `SRC/A.ts` is reported held when asked as `src/a.ts` (under " +
    "the spelling asked). Directories and symbols (extension, issue 24): an entry is not available when " +
    "any live claim overlaps it (the same entry, a directory above it, an entry under it, a symbol of it, " +
    "the file of a symbol); `claimant` and its fields name the earliest such claim and `holders[] { file, " +
    "claimant }` lists every one (two symbol holders for a whole-file check).",
  request: { query: ClaimCheckQuery },
  responses: {
    200: { description: "Holders", content: { "application/json": { schema: ClaimCheckResponse } } },
  },
}, { scope: "read:board", cost: 1 });

export const claimVerifyRoute = defineRoute({
  method: "post",
  path: "/claim/verify",
  tags: ["Claims"],
  summary: "Verify that you hold files now (extension: the question a gate asks)",
  description: "(extension, issue 25) Scope read:board. Body `files`: 1 to " + MAX_VERIFY_FILES +
    " entries, each a path or " +
    "`{ file, fence }` (0 or more: 400 VALIDATION_ERROR). Each entry answers `status`: `held` (you, or your " +
    "parent agent for a sub-agent when it claimed with allowSubAgents, hold it now), `not_claimed`, " +
    "`held_by_other`, or `fence_stale` (the fence sent is not the current holder's: your claim ended or " +
    "another grant holds it now), with the current holder's `fence` and `holder` name (as in conflicts) " +
    "when someone holds it. `ok` is true only when every entry is `held`. Paths are canonicalised and " +
    "letter case is ignored, as by POST /claim. Writes nothing. The CLI's git hooks and edit gate ask it " +
    "(`deno task cli gate pre-commit|pre-push|edit`).",
  request: { body: { required: true, content: { "application/json": { schema: ClaimVerifyBody } } } },
  responses: {
    200: { description: "Verdict", content: { "application/json": { schema: ClaimVerifyResponse } } },
  },
}, { scope: "read:board", cost: 1, staleExempt: true });

export const releaseRoute = defineRoute({
  method: "post",
  path: "/release",
  tags: ["Claims"],
  summary: "Release your claims",
  description:
    "Scope write:claim, any role (releasing is not claiming). Send exactly one of `files` (frees every active claim of yours that includes any of the " +
    "files, with all the files of those claims) or `all: true` (every active claim of yours); both or " +
    "neither: 400. Only your own claims (same agent and sub-agent) are freed; other holders are never " +
    "touched. `files` match your claims without regard to letter case (`src/a.ts` releases your claim on " +
    "`SRC/A.ts`); a directory or symbol entry matches the same entry as claimed (`src/auth/` releases your " +
    "claim of `src/auth/**`, not your claims of files inside it). Response `{ released }`: the freed files as they were claimed, sorted, empty when nothing " +
    "matched. Writes a CONTEXT " +
    "ledger entry and a `claim.released` event. Not gated by LEDGER_STALE (releasing ends the condition). " +
    `429 BACKPRESSURE over ${budget("release")} per agent.`,
  request: { body: { required: true, content: { "application/json": { schema: ReleaseBody } } } },
  responses: {
    200: { description: "Released", content: { "application/json": { schema: ReleaseResponse } } },
  },
}, { scope: "write:claim", cost: 2, staleExempt: true });

const REQUEST_NOTE = "Scope read:board. Your own requests only (same agent and sub-agent); another " +
  "agent's request answers 404 NOT_FOUND. Due work is done first: requests past expiresAt become `expired`, " +
  "and free files are granted.";

export const claimRequestsRoute = defineRoute({
  method: "get",
  path: "/claim/requests",
  tags: ["Claims"],
  summary: "(extension) Your claim wait requests",
  description: REQUEST_NOTE + " Query `status` (waiting, granted, expired, cancelled) filters. Response " +
    "`{ requests }`, newest first, at most 100.",
  request: { query: ClaimRequestsQuery },
  responses: { 200: { description: "Your requests", ...json(ClaimRequestsResponse) } },
}, { scope: "read:board", cost: 1 });

export const claimRequestRoute = defineRoute({
  method: "get",
  path: "/claim/requests/{id}",
  tags: ["Claims"],
  summary: "(extension) One of your claim wait requests",
  description: REQUEST_NOTE + " Answers the request (the shape of POST /claim's 202 `data.request`; " +
    "`position` and `holders` as of now), plus `claims[]` once granted.",
  request: { params: ClaimRequestParams },
  responses: { 200: { description: "The request", ...json(ClaimRequestResponse) }, ...errorResponses(404) },
}, { scope: "read:board", cost: 1 });

export const cancelClaimRequestRoute = defineRoute({
  method: "delete",
  path: "/claim/requests/{id}",
  tags: ["Claims"],
  summary: "(extension) Cancel one of your claim wait requests",
  description: "Scope write:claim. Cancels your waiting request: 200 with the request, status `cancelled` " +
    "(a body, if any, is ignored; cancelling a cancelled one answers it again). A granted or expired " +
    "request answers 409 CONFLICT (release a granted claim with POST /release); another agent's request " +
    "404 NOT_FOUND. Later waiters that it held back are granted in the same transaction.",
  request: { params: ClaimRequestParams },
  responses: {
    200: { description: "Cancelled", ...json(ClaimRequestResponse) },
    ...errorResponses(404, 409),
  },
}, { scope: "write:claim", cost: 2, staleExempt: true });

/** Claims routes. */
export function registerClaims(api: OpenAPIHono<AppEnv>): void {
  handle(api, claimRoute, async ({ c, body, ctx }) => {
    const answer = await claimFiles(ctx, body);
    if ("request" in answer) return ok(c, { request: answer.request, nextAction: answer.nextAction }, 202);
    return ok(c, answer, 200);
  });
  handle(
    api,
    claimRequestsRoute,
    async ({ c, query, ctx }) => ok(c, await listClaimRequests(ctx, query.status)),
  );
  handle(api, claimRequestRoute, async ({ c, params, ctx }) => ok(c, await getClaimRequest(ctx, params.id)));
  handle(
    api,
    cancelClaimRequestRoute,
    async ({ c, params, ctx }) => ok(c, await cancelClaimRequest(ctx, params.id)),
  );
  handle(api, claimCheckRoute, async ({ c, query, ctx }) => ok(c, await checkClaims(ctx, query.files)));
  handle(api, claimVerifyRoute, async ({ c, body, ctx }) => ok(c, await verifyClaims(ctx, body)));
  handle(api, releaseRoute, async ({ c, body, ctx }) => ok(c, await releaseOwnClaims(ctx, body)));
}
