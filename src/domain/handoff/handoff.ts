import { sql } from "kysely";
import type { DbOrTrx, Trx } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";
import { releaseClaims } from "@/domain/claims/release.ts";
import { recordEvent } from "@/domain/events/record.ts";
import { writeSystemEntry } from "@/domain/ledger/system-entry.ts";
import { closeSessions } from "@/domain/sessions/close.ts";
import type { ActorCtx } from "@/domain/shared/context.ts";
import { DomainError, fail, recovery } from "@/domain/shared/errors.ts";
import { upsertArtifact } from "@/domain/tickets/artifacts.ts";
import { resolveTicketRef } from "@/domain/tickets/refs.ts";
import type { TicketRow } from "@/domain/tickets/serialize.ts";
import { appendReviewHistory, observedConflict } from "@/domain/tickets/workflow.ts";
import { countModulesDone } from "./modules.ts";
import { type NextAction, nextActionAfterHandoff } from "./next-action.ts";
import {
  checkTicketForHandoff,
  findOwnSession,
  notGenerator,
  OPEN_SESSION_STATUSES,
} from "./preconditions.ts";
import { createQaRun, evidenceCriteria } from "./qa.ts";
import { handoffTarget, isTrivialChange, type ReviewMode } from "./review-mode.ts";
import { toolResultsJob } from "./tool-results.ts";
import { type ArtifactView, handoffWarnings, type Remediation } from "./warnings.ts";

export interface HandoffArtifact {
  type: "pull_request" | "branch" | "commit" | "deploy";
  url: string;
  ref?: string | undefined;
  title?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

export interface HandoffInput {
  moduleName: string;
  summary: string;
  sessionId: string;
  ticketId?: string | undefined;
  testResults?: string | undefined;
  artifacts?: HandoffArtifact[] | undefined;
  diffStat?: string | undefined;
  toolResults?: unknown[] | undefined;
}

export interface HandoffResult {
  ok: true;
  modulesDone: number;
  duplicate?: true;
  ticketAdvanced?: boolean;
  nextAction?: NextAction;
  review?: {
    required: boolean;
    mode: ReviewMode;
    qaRunId: string | null;
    criteriaCount: number;
    qaTestCount: number;
    ticketStatus: string;
  };
  warnings?: string[];
  remediations?: Remediation[];
  suggestions?: string[];
  pullRequest?: { url: string; ref: string | null; title: string | null };
}

/**
 * Stores one handed-off artifact on the ticket with the upsert POST /ticket/{id}/artifacts uses: the same
 * type and URL already on the ticket is updated in place; a commit is stored `closed`, anything else `open`.
 */
async function storeArtifact(
  trx: Trx,
  at: { projectId: string; agentId: string; ticketId: string; now: Date },
  a: HandoffArtifact,
): Promise<void> {
  const { row, created } = await upsertArtifact(trx, {
    ticketId: at.ticketId,
    agentId: at.agentId,
    now: at.now,
    type: a.type,
    url: a.url,
    ref: a.ref,
    title: a.title,
    metadata: a.metadata,
  });
  await recordEvent(trx, {
    projectId: at.projectId,
    kind: created ? "artifact.added" : "artifact.updated",
    entityType: "artifact",
    entityId: row.id,
    agentId: at.agentId,
    data: { ticketId: at.ticketId, type: a.type, url: a.url, by: "handoff" },
    now: at.now,
  });
}

/** Whether the session already has its DONE entry (HAND-040: a repeat answers `duplicate: true`). */
async function hasDone(db: DbOrTrx, sessionId: string): Promise<boolean> {
  const done = await db.selectFrom("ledger_entries").select("id").where("session_id", "=", sessionId)
    .where("type", "=", "DONE").limit(1).executeTakeFirst();
  return done !== undefined;
}

/**
 * POST /handoff. Validates everything first, then writes in ONE transaction: artifacts, the diffStat
 * PROGRESS entry, the single ticket move (compare-and-swap on the observed status and assignee), the
 * QA run, the release of every claim of the identity with a STATUS entry, the DONE and AGENT_COMPLETED
 * entries, the session completion (token revoked) and the background job for `toolResults`.
 */
export async function handoff(ctx: ActorCtx, input: HandoffInput): Promise<HandoffResult> {
  const { actor, db } = ctx;
  if (actor.role !== "generator") throw notGenerator(actor);
  const session = await findOwnSession(db, actor, input.sessionId);
  if (!session) {
    throw fail.validation(`Cannot hand off session "${input.sessionId}": it is not your session`, {
      fields: [{ path: "sessionId", message: "Not a session of the caller", code: "custom" }],
      recovery: recovery("PROVIDE_SESSION_ID", "GET /me", "Use your own sessionId (GET /me returns it)"),
    });
  }
  if (await hasDone(db, session.id)) {
    return { ok: true, modulesDone: await countModulesDone(db, actor.projectId), duplicate: true };
  }
  if (!OPEN_SESSION_STATUSES.includes(session.status)) {
    throw fail.conflict(`Cannot hand off session "${session.id}": it is already ${session.status}`, {
      sessionStatus: session.status,
    });
  }
  const progress = await db.selectFrom("ledger_entries").select("id").where("session_id", "=", session.id)
    .where("type", "=", "PROGRESS").limit(1).executeTakeFirst();
  if (!progress) {
    throw fail.validation("Cannot hand off: the session has no PROGRESS entry", {
      missing: ["progress_entry"],
      recovery: recovery("LOG_PROGRESS_ENTRY", "POST /ledger", "Log what you did as a PROGRESS entry first", {
        type: "PROGRESS",
        content: "<what you did>",
        sessionId: session.id,
      }),
    });
  }

  const project = await db.selectFrom("projects").select(["review_mode", "settings"])
    .where("id", "=", actor.projectId).executeTakeFirstOrThrow();
  const now = ctx.clock.now();
  let ticket: TicketRow | null = null;
  let adopt = false;
  if (input.ticketId !== undefined) {
    const id = await resolveTicketRef(db, actor.projectId, input.ticketId);
    ticket = await db.selectFrom("tickets").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    const claim = await db.selectFrom("claims").select("id").where("ticket_id", "=", id)
      .where("agent_id", "=", actor.agentId).where("released_at", "is", null).where("expires_at", ">", now)
      .limit(1).executeTakeFirst();
    adopt = checkTicketForHandoff(ticket, input.ticketId, actor, claim !== undefined).adopt;
  }

  const heldFiles = await db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
    .select("f.file").where("c.project_id", "=", actor.projectId).where("c.agent_id", "=", actor.agentId)
    .where("c.released_at", "is", null).where("f.released_at", "is", null).where("c.expires_at", ">", now)
    .execute();
  const touched = [...new Set(heldFiles.map((f) => f.file))].sort();
  const entries = await db.selectFrom("ledger_entries").select(["type", "content", "file_ref"])
    .where("project_id", "=", actor.projectId)
    .where((eb) =>
      ticket ? eb.or([eb("session_id", "=", session.id), eb("ticket_id", "=", ticket.id)]) : eb(
        "session_id",
        "=",
        session.id,
      )
    ).execute();
  const storedPrs = ticket
    ? await db.selectFrom("ticket_artifacts").select(["type", "url", "status", "metadata"])
      .where("ticket_id", "=", ticket.id).where("type", "=", "pull_request").execute()
    : [];
  const artifacts = input.artifacts ?? [];
  const prViews: ArtifactView[] = [
    ...artifacts.map((a) => ({ type: a.type, url: a.url, metadata: a.metadata })),
    // A stored PR the handoff sends again is judged by what the handoff sends (it replaces it).
    ...storedPrs.filter((a) => !artifacts.some((b) => b.type === a.type && b.url === a.url))
      .map((a) => ({ type: a.type, url: a.url, status: a.status, metadata: a.metadata })),
  ];
  const { warnings, remediations } = handoffWarnings({
    ticket: ticket ? { verificationCommand: ticket.verification_command } : null,
    entries: entries.map((e) => ({ type: e.type, content: e.content, fileRef: e.file_ref })),
    releasedFiles: touched,
    artifacts: prViews,
  });

  const mode = project.review_mode;
  const target = ticket
    ? handoffTarget(mode, project.settings, ticket.status, () =>
      isTrivialChange({
        riskClass: ticket.risk_class,
        criteria: ticket.acceptance_criteria,
        files: touched.length > 0 ? touched : ticket.expected_files,
        diffStat: input.diffStat,
      }))
    : null;
  const firstPr = artifacts.find((a) => a.type === "pull_request");

  const written = await db.transaction().execute(async (trx) => {
    const base = {
      projectId: actor.projectId,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      sessionId: session.id,
      ticketId: ticket?.id ?? null,
      now,
    };
    if (ticket) {
      for (const a of artifacts) await storeArtifact(trx, { ...base, ticketId: ticket.id }, a);
    }
    if (input.diffStat) {
      await writeSystemEntry(trx, {
        source: "agent",
        ...base,
        type: "PROGRESS",
        content: input.diffStat,
        payload: { diffStat: true },
      });
    }

    let qa: { id: string; tests: number; criteria: number } | null = null;
    let advanced = false;
    if (ticket && target) {
      const changed = target.status !== ticket.status;
      const reviewHandoff = target.reviewRequired
        ? {
          summary: input.summary,
          changedFiles: touched.length > 0 ? touched : ticket.expected_files,
          branch: ticket.branch,
          ...(firstPr ? { prUrl: firstPr.url } : {}),
        }
        : null;
      const moved = await trx.updateTable("tickets").set({
        status: target.status,
        updated_at: now,
        // The column's update type is the serialized JSON; the append is done in SQL.
        review_history: sql<string>`${
          appendReviewHistory({
            action: "handoff",
            from: ticket.status,
            to: target.status,
            agentId: actor.agentId,
            subAgentName: actor.subAgentName,
            at: now.toISOString(),
          })
        }`,
        ...(changed ? { status_changed_at: now } : {}),
        ...(reviewHandoff ? { review_handoff: toJson(reviewHandoff) } : {}),
        ...(adopt ? { assignee_agent_id: actor.agentId, sub_agent_name: actor.subAgentName } : {}),
      }).where("id", "=", ticket.id).where("status", "=", ticket.status)
        .where((eb) =>
          ticket.assignee_agent_id === null
            ? eb("assignee_agent_id", "is", null)
            : eb("assignee_agent_id", "=", ticket.assignee_agent_id)
        )
        .returning("id").executeTakeFirst();
      if (!moved) throw await observedConflict(trx, ticket.id, ticket.status, ticket.assignee_agent_id);
      advanced = changed;
      if (adopt && !changed) {
        await recordEvent(trx, {
          projectId: actor.projectId,
          kind: "ticket.updated",
          entityType: "ticket",
          entityId: ticket.id,
          agentId: actor.agentId,
          data: { number: ticket.number, assigneeAgentId: actor.agentId, by: "handoff" },
          now,
        });
      }
      if (changed) {
        await recordEvent(trx, {
          projectId: actor.projectId,
          kind: "ticket.moved",
          entityType: "ticket",
          entityId: ticket.id,
          agentId: actor.agentId,
          data: {
            number: ticket.number,
            from: ticket.status,
            to: target.status,
            by: "handoff",
            ...(adopt ? { assigneeAgentId: actor.agentId } : {}),
          },
          now,
        });
      }
      const needEvidence = evidenceCriteria(ticket.acceptance_criteria);
      if (target.reviewRequired && needEvidence.length > 0) {
        const id = await createQaRun(trx, {
          projectId: actor.projectId,
          ticketId: ticket.id,
          sessionId: session.id,
          agentId: actor.agentId,
          criteria: needEvidence,
          now,
        });
        qa = { id, tests: needEvidence.length, criteria: ticket.acceptance_criteria.length };
      }
    }

    const holders = await trx.selectFrom("claims").select("sub_agent_name").distinct()
      .where("project_id", "=", actor.projectId).where("agent_id", "=", actor.agentId)
      .where("released_at", "is", null).execute();
    const released: string[] = [];
    for (const h of holders) {
      released.push(
        ...await releaseClaims(trx, {
          projectId: actor.projectId,
          agentId: actor.agentId,
          subAgentName: h.sub_agent_name,
          all: true,
          sessionId: session.id,
          now,
        }),
      );
    }
    const files = [...new Set(released)].sort();
    await writeSystemEntry(trx, {
      ...base,
      type: "STATUS",
      content: files.length > 0
        ? `Handoff released ${files.length} file(s): ${files.join(", ")}`.slice(0, 2000)
        : "Handoff released no files",
      payload: { action: "handoff_release", files },
    });
    await writeSystemEntry(trx, {
      source: "agent",
      ...base,
      type: "DONE",
      content: `${input.moduleName}: ${input.summary}`.slice(0, 2000),
      payload: {
        kind: "handoff",
        moduleName: input.moduleName,
        summary: input.summary,
        ...(input.testResults !== undefined ? { testResults: input.testResults } : {}),
        artifacts,
        ticketStatus: target?.status ?? null,
      },
    });
    await writeSystemEntry(trx, {
      ...base,
      type: "AGENT_COMPLETED",
      content:
        `${actor.subAgentName ? `${actor.agentName}/${actor.subAgentName}` : actor.agentName} completed ` +
        `${input.moduleName}`,
      payload: { moduleName: input.moduleName, ticketStatus: target?.status ?? null },
    });
    if (input.toolResults && input.toolResults.length > 0) {
      await trx.insertInto("pending_jobs").values(toolResultsJob({
        projectId: actor.projectId,
        agentId: actor.agentId,
        subAgentName: actor.subAgentName,
        sessionId: session.id,
        ticketId: ticket?.id ?? null,
        toolResults: input.toolResults,
      }, now)).execute();
    }
    const closed = await closeSessions(trx, {
      projectId: actor.projectId,
      sessionIds: [session.id],
      status: "complete",
      byAgentId: actor.agentId,
      reason: "handoff",
      now,
    });
    if (closed.length === 0) {
      throw fail.conflict(`Cannot hand off session "${session.id}": it closed during the call`);
    }
    await recordEvent(trx, {
      projectId: actor.projectId,
      kind: "handoff.completed",
      entityType: "session",
      entityId: session.id,
      agentId: actor.agentId,
      data: {
        moduleName: input.moduleName,
        ticketId: ticket?.id ?? null,
        ticketStatus: target?.status ?? null,
      },
      now,
    });
    return {
      qa,
      advanced,
      modulesDone: await countModulesDone(trx, actor.projectId),
      nextAction: await nextActionAfterHandoff(trx, { projectId: actor.projectId, agentId: actor.agentId }),
    };
  }).catch(async (err) => {
    // A concurrent handoff of the same session won the race (its commit moved the ticket or closed the
    // session under this one, which rolled back): answer as the repeat would (HAND-040), not 409.
    if (err instanceof DomainError && err.status === 409 && await hasDone(db, session.id)) return null;
    throw err;
  });
  if (written === null) {
    return { ok: true, modulesDone: await countModulesDone(db, actor.projectId), duplicate: true };
  }

  const suggestions: string[] = [];
  if (ticket && artifacts.length === 0 && !ticket.no_artifact) {
    suggestions.push(
      "Attach the pull request, branch or commit as an artifact so reviewers can find the change",
    );
  }
  if (ticket && input.testResults === undefined) {
    suggestions.push("Send testResults with the handoff: a one-line outcome of your verification run");
  }
  return {
    ok: true,
    modulesDone: written.modulesDone,
    ticketAdvanced: written.advanced,
    nextAction: written.nextAction,
    ...(ticket && target?.reviewRequired
      ? {
        review: {
          required: true,
          mode,
          qaRunId: written.qa?.id ?? null,
          criteriaCount: ticket.acceptance_criteria.length,
          qaTestCount: written.qa?.tests ?? 0,
          ticketStatus: target.status,
        },
      }
      : {}),
    ...(warnings.length > 0 ? { warnings, remediations } : {}),
    ...(suggestions.length > 0 ? { suggestions } : {}),
    ...(firstPr
      ? { pullRequest: { url: firstPr.url, ref: firstPr.ref ?? null, title: firstPr.title ?? null } }
      : {}),
  };
}
