import type { BriefField } from "@/contracts/brief.ts";
import { toJson } from "@/db/tables/types.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { hasScope } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail, recovery } from "@/domain/core/errors.ts";
import { BRIEF_FIELD_ORDER, type BriefContent, isBlankBrief, orderedBrief, readBrief } from "./content.ts";
import { chargeBriefWrite } from "./rate.ts";

export type BriefPatchInput = Partial<Record<BriefField, unknown>> & { expectedVersion?: number | undefined };

/** A lost race without expectedVersion is retried this many times before answering 409. */
const MAX_ATTEMPTS = 5;

/**
 * PATCH /brief. Authorization lives here, not in the route policy, because the blank-brief exception
 * depends on the stored brief: `write:brief` (or an unrestricted key) may always write; while the brief
 * is blank a non-sub-agent caller with `write:ticket` may write it too; sub-agents never may.
 * Every write is a compare-and-swap on `brief_version` (the version the permission was judged on), so a
 * concurrent writer can never slip a second "first brief" past the blank check, and `expectedVersion`
 * is checked by the same conditional UPDATE.
 */
export async function patchBrief(ctx: ActorCtx, input: BriefPatchInput) {
  const { actor } = ctx;
  if (actor.kind === "subagent" || actor.subAgentName !== null) {
    throw fail.forbidden("Sub-agents cannot write the project brief", {
      requiredScope: "write:brief",
      guidance: "Sub-agents never write the brief (svc_sub_ tokens and X-Svc-SubAgent alike): the parent " +
        "agent writes it with a key or token that carries write:brief",
      recovery: recovery(
        "REPAIR_OR_REFRESH",
        "PATCH /brief",
        "Ask the orchestrator (or a key with write:brief) to write the brief",
        null,
      ),
    });
  }
  await chargeBriefWrite(ctx);
  const patch: BriefContent = {};
  for (const field of BRIEF_FIELD_ORDER) if (input[field] !== undefined) patch[field] = input[field];
  const patchedFields = BRIEF_FIELD_ORDER.filter((f) => input[f] !== undefined);

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await readBrief(ctx.db, actor.projectId);
    if (!hasScope(actor, "write:brief")) {
      const blank = isBlankBrief(current.content);
      if (!blank || !hasScope(actor, "write:ticket")) throw briefForbidden(blank);
    }
    if (input.expectedVersion !== undefined && input.expectedVersion !== current.version) {
      throw versionConflict(current.version, current.content);
    }
    const merged = orderedBrief({ ...current.content, ...patch });
    const now = ctx.clock.now();
    const version = await ctx.db.transaction().execute(async (trx) => {
      const updated = await trx.updateTable("projects")
        .set({
          brief: toJson(merged),
          brief_version: current.version + 1,
          brief_updated_at: now,
          updated_at: now,
        })
        .where("id", "=", actor.projectId)
        .where("brief_version", "=", current.version)
        .returning("brief_version")
        .executeTakeFirst();
      if (!updated) return null;
      await trx.insertInto("brief_versions").values({
        project_id: actor.projectId,
        version: updated.brief_version,
        content: toJson(merged),
        agent_id: actor.agentId,
        created_at: now,
      }).execute();
      await recordEvent(trx, {
        projectId: actor.projectId,
        kind: "brief.updated",
        entityType: "brief",
        entityId: actor.projectId,
        agentId: actor.agentId,
        data: { version: updated.brief_version, patchedFields },
        now,
      });
      return updated.brief_version;
    });
    if (version !== null) return { version, patchedFields };
    if (input.expectedVersion !== undefined) {
      const latest = await readBrief(ctx.db, actor.projectId);
      throw versionConflict(latest.version, latest.content);
    }
  }
  const latest = await readBrief(ctx.db, actor.projectId);
  throw versionConflict(latest.version, latest.content);
}

function versionConflict(currentVersion: number, content: BriefContent) {
  return fail.conflict(
    `The brief is at version ${currentVersion}: re-read it, merge your change and send expectedVersion ${currentVersion}`,
    { currentVersion, currentContent: orderedBrief(content) },
    "VERSION_CONFLICT",
  );
}

function briefForbidden(blank: boolean) {
  return fail.forbidden(
    blank
      ? 'Writing the brief needs scope "write:brief", or "write:ticket" while the brief is blank'
      : 'The brief already has content: changing it needs scope "write:brief"',
    {
      requiredScope: "write:brief",
      briefBlank: blank,
      recovery: recovery(
        "REPAIR_OR_REFRESH",
        "PATCH /brief",
        "Use a key that carries write:brief (ask a project admin), or ask its holder to make the change",
        null,
      ),
    },
  );
}
