import type { OpenAPIHono } from "@hono/zod-openapi";
import {
  ClaimBody,
  ClaimCheckQuery,
  ClaimCheckResponse,
  ClaimConflictError,
  ClaimResponse,
  ClaimVerifyBody,
  ClaimVerifyResponse,
  MAX_CLAIM_FILES,
  MAX_ESTIMATED_SECONDS,
  MAX_VERIFY_FILES,
  ReleaseBody,
  ReleaseResponse,
} from "@/contracts/claims.ts";
import { errorResponses } from "@/contracts/common.ts";
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
    "429 LEDGER_STALE when you hold claims or an in-progress ticket and have not logged for too long.",
  request: { body: { required: true, content: { "application/json": { schema: ClaimBody } } } },
  responses: {
    200: { description: "Claimed", content: { "application/json": { schema: ClaimResponse } } },
    ...errorResponses(404),
    409: {
      description: "CONFLICT: a requested file is held by someone else; nothing was claimed",
      content: { "application/json": { schema: ClaimConflictError } },
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
    "the spelling asked).",
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
    "`SRC/A.ts`). Response `{ released }`: the freed files as they were claimed, sorted, empty when nothing " +
    "matched. Writes a CONTEXT " +
    "ledger entry and a `claim.released` event. Not gated by LEDGER_STALE (releasing ends the condition). " +
    `429 BACKPRESSURE over ${budget("release")} per agent.`,
  request: { body: { required: true, content: { "application/json": { schema: ReleaseBody } } } },
  responses: {
    200: { description: "Released", content: { "application/json": { schema: ReleaseResponse } } },
  },
}, { scope: "write:claim", cost: 2, staleExempt: true });

/** Claims routes. */
export function registerClaims(api: OpenAPIHono<AppEnv>): void {
  handle(api, claimRoute, async ({ c, body, ctx }) => ok(c, await claimFiles(ctx, body)));
  handle(api, claimCheckRoute, async ({ c, query, ctx }) => ok(c, await checkClaims(ctx, query.files)));
  handle(api, claimVerifyRoute, async ({ c, body, ctx }) => ok(c, await verifyClaims(ctx, body)));
  handle(api, releaseRoute, async ({ c, body, ctx }) => ok(c, await releaseOwnClaims(ctx, body)));
}
