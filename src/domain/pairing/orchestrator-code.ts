import type { z } from "zod";
import type { PairCodeRequest } from "@/contracts/pairing.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail } from "@/domain/core/errors.ts";
import { issueAgentCode, ORCHESTRATOR_CODE_TTL_SECONDS } from "./codes.ts";

/** POST /pair/code's body, as the route has parsed it. */
export type OrchestratorCodeInput = z.output<typeof PairCodeRequest>;

/**
 * POST /pair/code: an orchestrator mints a one-hour pairing code for a new agent of its project, with
 * the name, platform, model and role the agent will get. A name that belongs to an orchestrator of the
 * project is refused (409): a code must not take over or demote a coordinator.
 */
export async function mintOrchestratorCode(ctx: ActorCtx, input: OrchestratorCodeInput) {
  const { actor } = ctx;
  const now = ctx.clock.now();
  const existing = await ctx.db.selectFrom("agents").select(["id", "role"])
    .where("project_id", "=", actor.projectId)
    .where((eb) => eb(eb.fn("lower", ["name"]), "=", input.agentName.toLowerCase())).executeTakeFirst();
  if (existing?.role === "orchestrator") {
    throw fail.conflict(`Agent name "${input.agentName}" belongs to an orchestrator; choose another name`, {
      agentName: input.agentName,
    });
  }
  const issued = await ctx.db.transaction().execute((trx) =>
    issueAgentCode(trx, {
      projectId: actor.projectId,
      agentName: input.agentName,
      role: input.role,
      platform: input.platform,
      model: input.model,
      issuedByAgentId: actor.agentId,
      ttlSeconds: ORCHESTRATOR_CODE_TTL_SECONDS,
      now,
    })
  );
  const api = `${ctx.publicUrl}/api`;
  return {
    ...issued,
    ttlSeconds: ORCHESTRATOR_CODE_TTL_SECONDS,
    instructions:
      `Give this code to the new agent; it works once, within one hour (until ${issued.expiresAt}). ` +
      `The agent pairs with POST ${api}/pair/connect and body {"code":"${issued.code}"} (no Authorization ` +
      `header) and becomes "${input.agentName}" (${input.role}). Onboarding prompt to paste into the agent: ` +
      `GET ${api}/pair/prompt?code=${issued.code}`,
  };
}
