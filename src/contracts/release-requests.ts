/** Release requests (issue 24 point 3, an extension of the spec): ask the holder of files to release them. */
import { z } from "@hono/zod-openapi";
import { envelope } from "./common.ts";
import { filePathList } from "./file-path.ts";

/** Files per release request. */
export const MAX_RELEASE_REQUEST_FILES = 20;
/** Characters of a release request's message and of an answer's message. */
export const MAX_RELEASE_MESSAGE = 500;
/** Pending release requests GET /context lists (`releaseRequests[]`). */
export const RELEASE_REQUESTS_IN_CONTEXT = 20;
export const RELEASE_REQUEST_STATUSES = ["pending", "released", "declined"] as const;

export const ReleaseRequestBody = z.object({
  files: filePathList(
    1,
    MAX_RELEASE_REQUEST_FILES,
    `1 to ${MAX_RELEASE_REQUEST_FILES} paths, all held now by one identity other than you`,
  ),
  message: z.string().max(MAX_RELEASE_MESSAGE).optional().openapi({
    description: `Why you need the files (up to ${MAX_RELEASE_MESSAGE} characters), shown to the holder`,
    example: "I need src/auth/token.ts to fix the refresh bug (AUTH-12)",
  }),
}).openapi("ReleaseRequestCreate");

export const ReleaseAnswerBody = z.object({
  answer: z.enum(["release", "decline"]).openapi({
    description: "`release` frees exactly the requested files of your claims at once; `decline` keeps them",
  }),
  message: z.string().max(MAX_RELEASE_MESSAGE).optional().openapi({
    description: `A word for the asker (up to ${MAX_RELEASE_MESSAGE} characters)`,
  }),
}).openapi("ReleaseRequestAnswer");

export const ReleaseRequestIdParams = z.object({
  requestId: z.string().uuid().openapi({
    param: { name: "requestId", in: "path" },
    description: "Release request id (UUID)",
  }),
});

export const ReleaseRequestListQuery = z.object({
  incoming: z.enum(["true", "false"]).optional().openapi({
    description: "`true`: the requests addressed to you (you hold the files); otherwise the ones you made",
  }),
});

export const ReleaseRequestSchema = z.object({
  id: z.string().uuid(),
  files: z.array(z.string()).openapi({ description: "The requested files, canonical" }),
  holder: z.string().openapi({
    description: "The holding identity: `agentName` or `agentName/subAgentName`",
  }),
  asker: z.string().openapi({ description: "The asking identity: `agentName` or `agentName/subAgentName`" }),
  message: z.string().nullable(),
  status: z.enum(RELEASE_REQUEST_STATUSES).openapi({
    description: "`pending` until answered; `released` (the files were freed, by an answer or because the " +
      "holder's claims of them ended first: `claimEnded`) or `declined`",
  }),
  claimEnded: z.boolean().openapi({
    description: "True when every claim of the holder on the files ended (released, handed off, expired, " +
      "revoked) before an answer: the request then reads `released` and can no longer be answered",
  }),
  answerMessage: z.string().nullable(),
  releasedFiles: z.array(z.string()).nullable().openapi({
    description: "The files the answer `release` freed (null otherwise)",
  }),
  createdAt: z.string(),
  answeredAt: z.string().nullable(),
}).openapi("ReleaseRequest", {
  example: {
    id: "7f1c2d7e-5a0b-4c1e-9f3a-2b6d8e4a1c90",
    files: ["src/auth/token.ts"],
    holder: "claude-a",
    asker: "claude-b",
    message: "I need src/auth/token.ts to fix the refresh bug",
    status: "pending",
    claimEnded: false,
    answerMessage: null,
    releasedFiles: null,
    createdAt: "2026-11-28T01:00:00.000Z",
    answeredAt: null,
  },
});

export const ReleaseRequestResponse = envelope(ReleaseRequestSchema).openapi("ReleaseRequestResponse");
export const ReleaseRequestListResponse = envelope(z.object({ requests: z.array(ReleaseRequestSchema) }))
  .openapi("ReleaseRequestListResponse");
