import { z } from "@hono/zod-openapi";
import { ContextData } from "@/contracts/context.ts";
import { isBlankBrief } from "@/domain/brief/content.ts";
import { COMPACT_BRIEF_CHARS } from "@/domain/context/brief.ts";
import type { ToolDefinition } from "../types.ts";
import { callOf, relay } from "./shared.ts";
import { contextRoute } from "@/routes/context.ts";

/**
 * `projectSetup` (MCP-017..019, design): it appears in the `svc_status` result, and only there, while the
 * project is brand new: its brief has no content and the board holds no ticket. The initialize
 * instructions stay the same for every project and tell agents to call `svc_status` first, so the setup
 * steps reach them on their first call.
 */
export const ProjectSetup = z.object({
  needed: z.literal(true),
  projectName: z.string(),
  briefVersion: z.number().int(),
  message: z.string(),
  steps: z.array(z.string()),
}).describe("Present only on a brand-new project (no brief content, no tickets): what to do first");

const StatusOutput = ContextData.extend({ projectSetup: ProjectSetup.optional() });
type Context = z.infer<typeof ContextData>;

/** True when the serialized brief of context holds no field with content (BRIEF-008's blank). */
function briefIsBlank(serialized: string): boolean {
  try {
    const parsed: unknown = JSON.parse(serialized);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return false;
    return isBlankBrief(parsed as Record<string, unknown>);
  } catch {
    // Cut at 500 characters in compact mode: a brief that long has content.
    return false;
  }
}

export function projectSetupFor(context: Context): z.infer<typeof ProjectSetup> | null {
  const noTickets = context.boardSummary.total === 0 && context.project.moduleCount === 0;
  if (!noTickets || !briefIsBlank(context.brief.content)) return null;
  return {
    needed: true,
    projectName: context.project.name,
    briefVersion: context.brief.version,
    message: `Project "${context.project.name}" is brand new: it has no brief and no tickets yet. Set it ` +
      "up before starting work.",
    steps: [
      "Ask the user what the project is for, then write the brief with svc_brief_update (scope, goals, " +
      "stack, constraints, context; any agent with write access may write a blank brief).",
      "Create the first tickets with svc_ticket_create (or several at once with svc_ticket_batch), each " +
      "with expected files, acceptance criteria, a done definition and a verification command.",
      "Optionally group them with svc_sprint_create and svc_sprint_assign.",
      "Start one with svc_ticket_begin, log progress with svc_ledger_add, and finish with svc_handoff.",
    ],
  };
}

export const svcStatus: ToolDefinition = {
  name: "svc_status",
  title: "Project status",
  description: "Call this first, and again whenever you lose track. Returns the compact context of GET " +
    `/context?compact=true: your agent and project, the brief (first ${COMPACT_BRIEF_CHARS} characters), your active ticket ` +
    "with next action, claims, reviews, pending actions, guidance and the board summary. On a brand-new " +
    "project (no brief content and no tickets) the result also carries `projectSetup` { needed, " +
    "projectName, briefVersion, message, steps } with the steps to set the project up; it disappears once " +
    "the brief has content or a ticket exists. Not read-only: the notifications it returns in `updates` " +
    "are marked read.",
  input: z.object({}),
  output: StatusOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  scope: "read",
  async run(_args, forward) {
    const reply = await forward(callOf(contextRoute, { query: { compact: "true" } }));
    return relay(reply, (data) => {
      const setup = projectSetupFor(data as Context);
      return setup === null ? data : { ...(data as Context), projectSetup: setup };
    });
  },
};
