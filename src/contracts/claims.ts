import { z } from "@hono/zod-openapi";
import { CLAIM_HOLD_STATUSES } from "@/shared/vocabulary.ts";
import { envelope, RecoverySchema } from "./common.ts";
import { FilePath, filePathList } from "./file-path.ts";

/** (design) Upper bound of `estimatedSeconds`: one day. */
export const MAX_ESTIMATED_SECONDS = 86_400;
/** Files per `POST /claim` and per `GET /claim/check`. */
export const MAX_CLAIM_FILES = 20;

export const NextActionSchema = z.object({
  action: z.string().openapi({ example: "LOG_PROGRESS" }),
  message: z.string(),
}).openapi("NextAction");

export const ClaimBody = z.object({
  files: filePathList(1, MAX_CLAIM_FILES, `1 to ${MAX_CLAIM_FILES} paths`),
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
    details: z.object({ conflicts: z.array(ClaimConflictSchema) }),
  }),
}).openapi("ClaimConflictError");

export const ClaimCheckQuery = z.object({
  files: z.string().min(1).openapi({
    description:
      `Comma-separated paths, 1 to ${MAX_CLAIM_FILES}; each canonicalised like every file path field (any spelling of a ` +
      "file finds it), an invalid one answers 400 VALIDATION_ERROR",
    example: "src/a.ts,src/b.ts",
  }),
});

export const ClaimCheckItem = z.object({
  file: z.string(),
  available: z.boolean().openapi({
    description: "True when no live claim of anyone (you included) holds it",
  }),
  claimant: z.string().optional().openapi({ description: "`agentName` or `agentName/subAgentName`" }),
  isSelf: z.boolean().optional().openapi({ description: "The claim is yours (same agent and sub-agent)" }),
  isStale: z.boolean().optional(),
  claimedAt: z.string().optional(),
  expiresAt: z.string().optional(),
  status: z.enum(CLAIM_HOLD_STATUSES).optional(),
  fence: z.number().int().positive().optional().openapi({
    description:
      "(extension, issue 25) The current holder's fencing token for this entry (held entries only)",
  }),
}).openapi("ClaimCheckItem");

export const ClaimCheckResponse = envelope(z.object({ files: z.array(ClaimCheckItem) })).openapi(
  "ClaimCheckResponse",
);

export const ReleaseBody = z.object({
  files: filePathList(
    1,
    100,
    "Frees every active claim of yours that includes any of these files (all files of it)",
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
