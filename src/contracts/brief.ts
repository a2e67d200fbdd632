import { z } from "@hono/zod-openapi";
import { envelope } from "./common.ts";

/** Longest string a brief text field may hold (characters, UTF-16 code units like every limit). */
export const BRIEF_TEXT_MAX = 50_000;
/** Most items a list field (`goals`, `stack`, `constraints`) may hold, and the longest item. */
export const BRIEF_LIST_MAX = 100;
export const BRIEF_ITEM_MAX = 2_000;
/** Largest serialized `custom` object, in characters of its JSON. */
export const BRIEF_CUSTOM_MAX = 50_000;

const Text = z.string().max(BRIEF_TEXT_MAX);
const TextOrList = z.union([Text, z.array(z.string().max(BRIEF_ITEM_MAX)).max(BRIEF_LIST_MAX)]).openapi({
  description: `A string, or a list of up to ${BRIEF_LIST_MAX} strings of up to ${BRIEF_ITEM_MAX} characters`,
});

export const BriefFields = ["scope", "goals", "stack", "constraints", "context", "custom"] as const;
export type BriefField = typeof BriefFields[number];

export const BriefPatchBody = z.object({
  scope: Text.optional().openapi({ description: "What the project is (string)" }),
  goals: TextOrList.optional(),
  stack: TextOrList.optional(),
  constraints: TextOrList.optional(),
  context: Text.optional().openapi({ description: "Background the agents need (string)" }),
  custom: z.record(z.string(), z.unknown()).optional().openapi({
    description: `Free-form object (replaced whole, not merged key by key); at most ${BRIEF_CUSTOM_MAX} ` +
      "characters once serialized",
  }),
  expectedVersion: z.number().int().min(0).optional().openapi({
    description: "Optimistic concurrency: the version you read. A different current version answers 409 " +
      "VERSION_CONFLICT and writes nothing. Omit it to write without a version check. A never-written brief " +
      "is version 0.",
  }),
}).strict().refine(
  (body) => BriefFields.some((f) => body[f] !== undefined),
  { message: "Send at least one brief field besides expectedVersion", path: [] },
).refine(
  (body) => body.custom === undefined || JSON.stringify(body.custom).length <= BRIEF_CUSTOM_MAX,
  { message: `custom is larger than ${BRIEF_CUSTOM_MAX} characters once serialized`, path: ["custom"] },
).openapi("BriefPatchRequest");

export const BriefPatchResult = z.object({
  version: z.number().int().openapi({ description: "The new version (previous + 1)" }),
  patchedFields: z.array(z.enum(BriefFields)).openapi({ description: "The brief fields this write sent" }),
}).openapi("BriefPatchResult");

export const BriefPatchResponse = envelope(BriefPatchResult);
