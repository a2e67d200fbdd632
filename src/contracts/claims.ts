import { z } from "@hono/zod-openapi";
import { CLAIM_HOLD_STATUSES } from "@/shared/vocabulary.ts";
import { envelope, RecoverySchema } from "./common.ts";
import { claimEntryList, FilePath } from "./file-path.ts";

/** (design) Upper bound of `estimatedSeconds`: one day. */
export const MAX_ESTIMATED_SECONDS = 86_400;
/** (extension) Upper bound of `waitSeconds`: one hour. */
export const MAX_WAIT_SECONDS = 3600;
/** Files per `POST /claim` and per `GET /claim/check`. */
export const MAX_CLAIM_FILES = 20;

export const NextActionSchema = z.object({
  action: z.string().openapi({ example: "LOG_PROGRESS" }),
  message: z.string(),
}).openapi("NextAction");

export const ClaimBody = z.object({
  files: claimEntryList(1, MAX_CLAIM_FILES, `1 to ${MAX_CLAIM_FILES} entries`),
  ticketId: z.string().min(1).max(64).optional().openapi({
    description: "Ticket UUID or key (`PREFIX-n`); links the claim to the ticket",
  }),
  estimatedSeconds: z.number().int().positive().max(MAX_ESTIMATED_SECONDS).optional().openapi({
    description:
      `Positive integer (at most ${MAX_ESTIMATED_SECONDS}): expiry = now + estimatedSeconds. Without it, a first claim ` +
      "and a re-claim both expire 30 minutes ahead",
  }),
  allowSubAgents: z.boolean().optional().openapi({
    description: "Lets this agent's sub-agents work under the claim (their claims answer `inherited`)",
  }),
  commitSha: z.string().min(7).max(64).regex(/^[0-9a-fA-F]+$/).optional().openapi({
    description: "Commit the work starts from (7 to 64 hex characters), recorded on the claim",
  }),
  waitSeconds: z.number().int().min(1).max(MAX_WAIT_SECONDS).optional().openapi({
    description:
      `(extension) Integer 1 to ${MAX_WAIT_SECONDS}: when a file is held by another identity (or other agents ` +
      "already wait for it), wait in the file's queue instead of a 409: the answer is 202 with `data.request`, " +
      "and the service grants the claim itself, in arrival order, as soon as every file is free",
    example: 600,
  }),
}).openapi("ClaimRequest");

export const ClaimItem = z.object({
  file: z.string(),
  claimedAt: z.string().openapi({ description: "ISO 8601; unchanged by renewals" }),
  expiresAt: z.string().openapi({ description: "ISO 8601; after it the claim stops counting" }),
  fence: z.number().int().positive().optional().openapi({
    description:
      "(extension, issue 25) Fencing token of this entry: strictly greater than every fence given " +
      "before for the file (a new claim, a restored claim); a renewal keeps it; an inherited entry shows its " +
      "parent's. Send it with writes that name the file (POST /ledger `fence`, POST /handoff `changedFiles[]`)",
    example: 42,
  }),
}).openapi("Claim");

export const ClaimData = z.object({
  claims: z.array(ClaimItem),
  nextAction: NextActionSchema,
  idempotent: z.literal(true).optional().openapi({ description: "Every file was already yours" }),
  renewed: z.literal(true).optional().openapi({ description: "With `idempotent`: the expiry was moved" }),
  inherited: z.literal(true).optional().openapi({
    description: "Some files are held by your parent agent with allowSubAgents; you work under its claim",
  }),
  restored: z.literal(true).optional().openapi({
    description: "Your claim from a session that ended less than 5 minutes ago moved to this session",
  }),
}).openapi("ClaimResult");

export const ClaimConflictSchema = z.object({
  file: z.string(),
  claimantName: z.string().openapi({ description: "`agentName` or `agentName/subAgentName`" }),
  claimedAt: z.string(),
  expiresAt: z.string().optional(),
  claimAgeMinutes: z.number().int(),
  isStale: z.boolean().openapi({ description: "Older than 10 minutes; still never taken over" }),
  status: z.enum(CLAIM_HOLD_STATUSES),
  ticketId: z.string().nullable().optional(),
  warning: z.string(),
  recovery: RecoverySchema,
}).openapi("ClaimConflict");

export const ClaimResponse = envelope(ClaimData).openapi("ClaimResponse");

export const ClaimConflictError = z.object({
  error: z.object({
    code: z.literal("CONFLICT"),
    message: z.string(),
    details: z.object({
      conflicts: z.array(ClaimConflictSchema),
      queue: z.object({
        waiting: z.number().int().openapi({ description: "Waiting requests on the contested files" }),
      }).optional().openapi({
        description:
          "(extension) Present when other agents wait for a requested file: a file with waiters is " +
          "granted to them first (a free one too: its conflict item names the first waiter)",
      }),
    }),
  }),
}).openapi("ClaimConflictError");

export const CycleEntrySchema = z.object({
  claimantName: z.string().openapi({ description: "`agentName` or `agentName/subAgentName`" }),
  holds: z.array(z.string()).openapi({ description: "Files it holds that others in the cycle wait for" }),
  waitsFor: z.array(z.string()).openapi({
    description: "Files it waits for (your entry, the first: the refused request's files)",
  }),
}).openapi("WaitCycleEntry");

export const ClaimDeadlockError = z.object({
  error: z.object({
    code: z.literal("DEADLOCK"),
    message: z.string(),
    details: z.object({
      cycle: z.array(CycleEntrySchema).openapi({ description: "From you round the cycle, back to you" }),
      recovery: RecoverySchema.openapi({
        example: {
          action: "RELEASE_HELD_FILES",
          endpoint: "POST /release",
          payloadHint: { files: ["src/a.ts"] },
          hint: "Release the files you hold that others wait for, then claim again with waitSeconds",
        },
      }),
    }),
  }),
}).openapi("ClaimDeadlockError");

export const ClaimQueueFullError = z.object({
  error: z.object({
    code: z.literal("QUEUE_FULL"),
    message: z.string(),
    details: z.object({
      limit: z.number().int(),
      scope: z.enum(["agent", "file"]),
      files: z.array(z.string()).optional(),
      recovery: RecoverySchema,
    }),
  }),
}).openapi("ClaimQueueFullError");

export const CLAIM_REQUEST_STATUSES = ["waiting", "granted", "expired", "cancelled"] as const;

export const ClaimRequestSchema = z.object({
  id: z.string().uuid(),
  files: z.array(z.string()),
  status: z.enum(CLAIM_REQUEST_STATUSES).openapi({
    description: "`waiting`, then `granted` (the claim exists), `expired` (not granted by expiresAt) or " +
      "`cancelled` (DELETE, or the agent was revoked)",
  }),
  position: z.record(z.string(), z.number().int()).openapi({
    description: "For each file held by another identity or with earlier waiters: the waiting requests " +
      "ahead of this one for it (0 = next). Empty once the request is no longer waiting",
    example: { "src/a.ts": 0 },
  }),
  holders: z.record(z.string(), z.string()).openapi({
    description: "Each held file's claimant (`agentName` or `agentName/subAgentName`)",
    example: { "src/a.ts": "claude-1" },
  }),
  createdAt: z.string(),
  expiresAt: z.string().openapi({ description: "Not granted by then: `expired` (event claim.wait_expired)" }),
  grantedAt: z.string().optional(),
  endedAt: z.string().optional().openapi({ description: "When it expired or was cancelled" }),
  claims: z.array(ClaimItem).optional().openapi({ description: "Once granted: the claim created for you" }),
}).openapi("ClaimWaitRequest");

export const ClaimWaitData = z.object({
  request: ClaimRequestSchema,
  nextAction: NextActionSchema.openapi({
    example: { action: "WAIT_FOR_GRANT", message: "Do not poll POST /claim: the service grants ..." },
  }),
}).openapi("ClaimWaitResult");

export const ClaimWaitResponse = envelope(ClaimWaitData).openapi("ClaimWaitResponse");

export const ClaimRequestsQuery = z.object({
  status: z.enum(CLAIM_REQUEST_STATUSES).optional().openapi({ description: "Only requests in this status" }),
});

export const ClaimRequestParams = z.object({
  id: z.string().uuid().openapi({ param: { name: "id", in: "path" }, description: "The request's id" }),
});

export const ClaimRequestResponse = envelope(ClaimRequestSchema).openapi("ClaimWaitRequestResponse");

export const ClaimRequestsResponse = envelope(z.object({
  requests: z.array(ClaimRequestSchema).max(100).openapi({ description: "Yours, newest first, at most 100" }),
})).openapi("ClaimWaitRequestsResponse");

export const ClaimCheckQuery = z.object({
  files: z.string().min(1).openapi({
    description:
      `Comma-separated entries, 1 to ${MAX_CLAIM_FILES}: files, directories (\`src/auth/\`) or symbols ` +
      "(`src/a.ts#parse`), each canonicalised like every claim entry (any spelling of an entry finds it), an " +
      "invalid one answers 400 VALIDATION_ERROR",
    example: "src/a.ts,src/b.ts",
  }),
});

export const ClaimCheckHolder = z.object({
  file: z.string().openapi({
    description: "The entry as it was claimed",
    example: "src/auth/token.ts#parseToken",
  }),
  claimant: z.string().openapi({ description: "`agentName` or `agentName/subAgentName`" }),
}).openapi("ClaimCheckHolder");

export const ClaimCheckItem = z.object({
  file: z.string(),
  available: z.boolean().openapi({
    description:
      "True when no live claim of anyone (you included) holds it or an overlapping entry (a directory above " +
      "it, an entry under it, a symbol of it)",
  }),
  claimant: z.string().optional().openapi({ description: "`agentName` or `agentName/subAgentName`" }),
  isSelf: z.boolean().optional().openapi({ description: "The claim is yours (same agent and sub-agent)" }),
  isStale: z.boolean().optional(),
  claimedAt: z.string().optional(),
  expiresAt: z.string().optional(),
  status: z.enum(CLAIM_HOLD_STATUSES).optional(),
  holders: z.array(ClaimCheckHolder).optional().openapi({
    description:
      "Extension (issue 24): when not available, every live claim overlapping the entry (the same entry, a " +
      "directory above it, an entry under it, a symbol of it), earliest first; `claimant` and the fields " +
      "above describe the first",
  }),
  queue: z.number().int().optional().openapi({
    description:
      "(extension) Waiting requests of other agents on the file. A free file with waiters is not " +
      "available (`claimant` names the first waiter): it is granted to them first",
  }),
  fence: z.number().int().positive().optional().openapi({
    description:
      "(extension, issue 25) The current holder's fencing token for this entry (held entries only)",
  }),
}).openapi("ClaimCheckItem");

export const ClaimCheckResponse = envelope(z.object({ files: z.array(ClaimCheckItem) })).openapi(
  "ClaimCheckResponse",
);

export const ReleaseBody = z.object({
  files: claimEntryList(
    1,
    100,
    "Frees every active claim of yours that includes any of these entries as claimed (all entries of it)",
  ).optional(),
  all: z.literal(true).optional().openapi({ description: "Frees every active claim of yours" }),
}).refine((b) => (b.files !== undefined) !== (b.all !== undefined), {
  message: "Send exactly one of `files` or `all: true`",
  path: ["files"],
}).openapi("ReleaseRequest");

export const ReleaseResponse = envelope(z.object({
  released: z.array(z.string()).openapi({ description: "Files freed, sorted; empty when nothing matched" }),
})).openapi("ReleaseResponse");

/** Entries per `POST /claim/verify` (issue 25), and per `changedFiles` of a handoff. */
export const MAX_VERIFY_FILES = 500;

/** A file named with the fencing token its author holds (issue 25). */
export const FencedFileSchema = z.object({
  file: FilePath,
  fence: z.number().int().positive().openapi({
    description: "The fence you hold (POST /claim `claims[].fence`)",
  }),
}).openapi("FencedFile");

/** A path, or `{ file, fence }`. */
export const FileOrFenced = z.union([FilePath, FencedFileSchema]);

export const ClaimVerifyBody = z.object({
  files: z.array(FileOrFenced).min(1).max(MAX_VERIFY_FILES).openapi({
    description: `1 to ${MAX_VERIFY_FILES} entries: a path, or \`{ file, fence }\` to also check the fence`,
    example: ["src/a.ts", { file: "src/b.ts", fence: 42 }],
  }),
}).openapi("ClaimVerifyRequest");

export const ClaimVerifyItem = z.object({
  file: z.string(),
  status: z.enum(["held", "not_claimed", "held_by_other", "fence_stale"]).openapi({
    description:
      "`held`: you (or your parent, with allowSubAgents) hold it now; `not_claimed`: nobody does; " +
      "`held_by_other`: another identity does; `fence_stale`: the fence sent is not the current one (the claim " +
      "ended, or another grant holds the file now)",
  }),
  fence: z.number().int().optional().openapi({ description: "The current holder's fence, when held" }),
  holder: z.string().optional().openapi({
    description: "The current holder: `agentName` or `agentName/subAgentName`",
  }),
}).openapi("ClaimVerifyItem");

export const ClaimVerifyResponse = envelope(
  z.object({
    ok: z.boolean().openapi({ description: "True only when every entry is `held`" }),
    files: z.array(ClaimVerifyItem),
  }).openapi("ClaimVerifyResult"),
).openapi("ClaimVerifyResponse");
