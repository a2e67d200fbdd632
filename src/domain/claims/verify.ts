import type { z } from "zod";
import type { ClaimVerifyBody, ClaimVerifyItem } from "@/contracts/claims.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { judgeEntries } from "@/domain/core/fences.ts";

/**
 * POST /claim/verify (issue 25): the question a gate asks. Each entry is judged against the live holders
 * (a fence sent must be the current one); `ok` only when the caller, or its parent for a sub-agent with
 * allowSubAgents, holds every entry now.
 */
export async function verifyClaims(
  ctx: ActorCtx,
  input: z.output<typeof ClaimVerifyBody>,
): Promise<{ ok: boolean; files: z.output<typeof ClaimVerifyItem>[] }> {
  const entries = input.files.map((f) => typeof f === "string" ? { file: f } : f);
  const files = await judgeEntries(ctx.db, ctx.actor, entries, ctx.clock.now());
  return { ok: files.every((f) => f.status === "held"), files };
}
