import { z } from "@hono/zod-openapi";
import { BriefPatchBody, BriefPatchResult } from "@/contracts/brief.ts";
import { ContextData } from "@/contracts/context.ts";
import { isBlankBrief } from "@/domain/brief/content.ts";
import { FULL_BRIEF_CHARS } from "@/domain/context/brief.ts";
import type { ToolDefinition } from "../types.ts";
import { callOf, fieldsOf, READ_ONLY, relay, updating } from "./shared.ts";
import { contextRoute } from "@/routes/context.ts";
import { patchBriefRoute } from "@/routes/brief.ts";

/** "16,000": the full-mode brief limit as the descriptions write it. */
const FULL_BRIEF = FULL_BRIEF_CHARS.toLocaleString("en-US");

const BriefGetOutput = z.object({
  brief: z.union([z.record(z.string(), z.unknown()), z.string()]).optional().describe(
    "The brief object (scope, goals, stack, constraints, context, custom); omitted when the project has " +
      `none. Over ${FULL_BRIEF} characters it is the serialized text cut there, with briefTruncated and briefFetchUrl`,
  ),
  briefVersion: ContextData.shape.brief.shape.version,
  briefUpdatedAt: z.null(),
  briefTruncated: z.literal(true).optional(),
  briefFetchUrl: z.string().optional(),
});
type BriefGet = z.infer<typeof BriefGetOutput>;

/** `{ brief, briefVersion, briefUpdatedAt: null }` from full context (MCP-046..048). */
export function briefResult(context: z.infer<typeof ContextData>): BriefGet {
  const out: BriefGet = { briefVersion: context.brief.version, briefUpdatedAt: null };
  if (context.briefTruncated) {
    return {
      brief: context.brief.content,
      ...out,
      briefTruncated: true,
      ...(context.briefFetchUrl ? { briefFetchUrl: context.briefFetchUrl } : {}),
    };
  }
  const parsed = JSON.parse(context.brief.content) as Record<string, unknown>;
  return isBlankBrief(parsed) ? out : { brief: parsed, ...out };
}

export const svcBriefGet: ToolDefinition = {
  name: "svc_brief_get",
  title: "Read the brief",
  description: "The project brief (from GET /context): { brief, briefVersion, briefUpdatedAt }. `brief` is " +
    "the brief object and is omitted when the project has no brief content; `briefUpdatedAt` is always " +
    "null; pass `briefVersion` as `expectedVersion` to svc_brief_update. A brief over " +
    `${FULL_BRIEF} characters ` +
    "comes as its serialized text cut there, with `briefTruncated: true` and `briefFetchUrl`. Delivers no " +
    "notifications.",
  input: z.object({}),
  output: BriefGetOutput,
  annotations: READ_ONLY,
  scope: "read",
  async run(_args, forward) {
    // updates_limit=0 marks no notification read; ledger_limit=0 skips the ledger nobody asked for.
    const reply = await forward(callOf(contextRoute, {
      query: { ledger_limit: 0, updates_limit: 0, thread_limit: 1 },
    }));
    return relay(reply, (data) => briefResult(data as z.infer<typeof ContextData>));
  },
};

/** The string form of a list field (MCP-064: the tool takes strings only). */
const textOf = (field: "goals" | "stack" | "constraints") => BriefPatchBody.shape[field].unwrap().options[0];

const BriefUpdateInput = z.object({
  ...fieldsOf(BriefPatchBody, "scope", "context", "expectedVersion"),
  goals: textOf("goals").optional(),
  stack: textOf("stack").optional(),
  constraints: textOf("constraints").optional(),
});

export const svcBriefUpdate: ToolDefinition<typeof BriefUpdateInput> = {
  name: "svc_brief_update",
  title: "Update the brief",
  description: "Writes brief fields (PATCH /brief): `scope`, `goals`, `stack`, `constraints`, `context`, " +
    "all strings; send at least one. Sent fields replace the stored ones; others stay. `expectedVersion` " +
    "(the briefVersion you read) refuses the write with 409 VERSION_CONFLICT when the brief changed since. " +
    "Needs write:brief, which OAuth tokens lack: while the brief is blank any agent with write access may " +
    "write it (403 FORBIDDEN afterwards). Result { version, patchedFields }.",
  input: BriefUpdateInput,
  output: BriefPatchResult,
  annotations: updating(false),
  scope: "write",
  async run(args, forward) {
    return relay(await forward(callOf(patchBriefRoute, { body: args })));
  },
};
