import type { ActorCtx } from "@/domain/core/context.ts";
import { loadProject } from "./ticket-context.ts";
import { describeWorkflow } from "@/domain/core/transitions.ts";

/** GET /workflow: the caller's board, transitions, actions and review guards. */
export async function getWorkflow(ctx: ActorCtx) {
  const project = await loadProject(ctx.db, ctx.actor.projectId);
  return describeWorkflow(project.settings, project.mode);
}
