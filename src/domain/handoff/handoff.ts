import type { DbOrTrx, Trx } from "@/db/database.ts";
import { lockProjectClaims } from "@/domain/core/claim-lock.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { writeSystemEntry } from "@/domain/core/system-entry.ts";
import { closeSessions } from "@/domain/sessions/close.ts";
import type { Actor } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { DomainError, fail, recovery } from "@/domain/core/errors.ts";
import { resolveTicketRef } from "@/domain/core/ticket-refs.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import { countModulesDone } from "./modules.ts";
import { nextActionAfterHandoff } from "./next-action.ts";
import {
  completedContent,
  doneEntry,
  handoffResponse,
  handoffSuggestions,
  type HandoffTarget,
  pullRequestViews,
  releaseContent,
  reviewHandoffOf,
  targetOf,
  type Written,
} from "./plan.ts";
import {
  checkTicketForHandoff,
  findOwnSession,
  notGenerator,
  OPEN_SESSION_STATUSES,
  type SessionRow,
} from "./preconditions.ts";
import { toolResultsJob } from "./tool-results.ts";
import { handoffWarnings } from "./warnings.ts";
import { type HandoffAt, maybeQaRun, moveTicket, releaseIdentity, storeArtifact } from "./write.ts";
import type { HandoffArtifact, HandoffInput, HandoffResult } from "./types.ts";
import { changedEntries, type Coverage, handoffCoverage } from "./coverage.ts";

/** Whether the session already has its DONE entry (HAND-040: a repeat answers `duplicate: true`). */
async function hasDone(db: DbOrTrx, sessionId: string): Promise<boolean> {
  const done = await db.selectFrom("ledger_entries").select("id").where("session_id", "=", sessionId)
    .where("type", "=", "DONE").limit(1).executeTakeFirst();
  return done !== undefined;
}

/** HAND-040: the answer to a repeat handoff, which writes nothing. */
async function duplicate(db: DbOrTrx, projectId: string): Promise<HandoffResult> {
  return { ok: true, modulesDone: await countModulesDone(db, projectId), duplicate: true };
}

/**
 * The caller's open session that may be handed off, or null when it was handed off already (HAND-040).
 * Checks in this order: own session (HAND-021), repeat, still open, has a PROGRESS entry (HAND-027).
 */
async function sessionToHandOff(db: DbOrTrx, actor: Actor, sessionId: string): Promise<SessionRow | null> {
  const session = await findOwnSession(db, actor, sessionId);
  if (!session) {
    throw fail.validation(`Cannot hand off session "${sessionId}": it is not your session`, {
      fields: [{ path: "sessionId", message: "Not a session of the caller", code: "custom" }],
      recovery: recovery("PROVIDE_SESSION_ID", "GET /me", "Use your own sessionId (GET /me returns it)"),
    });
  }
  if (await hasDone(db, session.id)) return null;
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
      // The missing item is a ledger entry: the spec's action for a named missing piece (CONV-034).
      recovery: recovery(
        "ADD_REQUIRED_FIELDS",
        "POST /ledger",
        "The handoff needs a PROGRESS entry in this session: log what you did with POST /ledger, then hand off again",
        { type: "PROGRESS", content: "<what you did>", sessionId: session.id },
      ),
    });
  }
  return session;
}

/** The named ticket, checked for handoff (HAND-007, HAND-028..034), and whether the caller adopts it. */
async function ticketToHandOff(
  db: DbOrTrx,
  actor: Actor,
  ref: string | undefined,
  now: Date,
): Promise<{ ticket: TicketRow | null; adopt: boolean }> {
  if (ref === undefined) return { ticket: null, adopt: false };
  const id = await resolveTicketRef(db, actor.projectId, ref);
  const ticket = await db.selectFrom("tickets").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  const claim = await db.selectFrom("claims").select("id").where("ticket_id", "=", id)
    .where("agent_id", "=", actor.agentId).where("released_at", "is", null).where("expires_at", ">", now)
    .limit(1).executeTakeFirst();
  return { ticket, adopt: checkTicketForHandoff(ticket, ref, actor, claim !== undefined).adopt };
}

/** What the warnings judge: the files the identity holds, the ledger of the session and ticket, stored PRs. */
async function loadEvidence(
  db: DbOrTrx,
  actor: Actor,
  sessionId: string,
  ticket: TicketRow | null,
  now: Date,
) {
  const heldFiles = await db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
    .select("f.file").where("c.project_id", "=", actor.projectId).where("c.agent_id", "=", actor.agentId)
    .where("c.released_at", "is", null).where("f.released_at", "is", null).where("c.expires_at", ">", now)
    .execute();
  const entries = await db.selectFrom("ledger_entries").select(["type", "content", "file_ref"])
    .where("project_id", "=", actor.projectId)
    .where((eb) =>
      ticket
        ? eb.or([eb("session_id", "=", sessionId), eb("ticket_id", "=", ticket.id)])
        : eb("session_id", "=", sessionId)
    ).execute();
  const storedPrs = ticket
    ? await db.selectFrom("ticket_artifacts").select(["type", "url", "status", "metadata"])
      .where("ticket_id", "=", ticket.id).where("type", "=", "pull_request").execute()
    : [];
  return {
    touched: [...new Set(heldFiles.map((f) => f.file))].sort(),
    entries: entries.map((e) => ({ type: e.type, content: e.content, fileRef: e.file_ref })),
    storedPrs,
  };
}

interface HandoffPlan {
  input: HandoffInput;
  artifacts: HandoffArtifact[];
  ticket: TicketRow | null;
  adopt: boolean;
  target: HandoffTarget;
  reviewHandoff: Record<string, unknown> | null;
  coverage: Coverage | null;
}

/**
 * The handoff's writes, in one transaction: artifacts, the diffStat PROGRESS entry (HAND-025), the ticket
 * move and QA run, the release of the identity's claims with its STATUS entry, the DONE and AGENT_COMPLETED
 * entries, the background job for `toolResults` (HAND-026) and the session completion (HAND-039).
 */
async function writeHandoff(trx: Trx, at: HandoffAt, plan: HandoffPlan): Promise<Written> {
  const { actor, now } = at;
  const { input, artifacts, ticket, target } = plan;
  // First: the handoff releases claims and grants waiters (one lock order with the wait queue).
  await lockProjectClaims(trx, actor.projectId);
  const ticketId = ticket?.id ?? null;
  const base = { projectId: actor.projectId, agentId: actor.agentId, subAgentName: actor.subAgentName };
  const entry = { ...base, sessionId: at.sessionId, ticketId, now };
  if (ticket) { for (const a of artifacts) await storeArtifact(trx, at, ticket.id, a); }
  if (input.diffStat) {
    const diff = { type: "PROGRESS", content: input.diffStat, payload: { diffStat: true } } as const;
    await writeSystemEntry(trx, { source: "agent", ...entry, ...diff });
  }
  let qa: Written["qa"] = null;
  let advanced = false;
  if (ticket && target) {
    advanced = await moveTicket(trx, at, {
      ticket,
      target,
      adopt: plan.adopt,
      reviewHandoff: plan.reviewHandoff,
    });
    qa = await maybeQaRun(trx, at, ticket, target);
  }
  const files = await releaseIdentity(trx, at);
  const release = { action: "handoff_release", files };
  await writeSystemEntry(trx, { ...entry, type: "STATUS", content: releaseContent(files), payload: release });
  const done = doneEntry(input, artifacts, target);
  if (plan.coverage) done.payload.coverage = plan.coverage;
  await writeSystemEntry(trx, { source: "agent", ...entry, type: "DONE", ...done });
  const ticketStatus = target?.status ?? null;
  await writeSystemEntry(trx, {
    ...entry,
    type: "AGENT_COMPLETED",
    content: completedContent(actor, input.moduleName),
    payload: { moduleName: input.moduleName, ticketStatus },
  });
  if (input.toolResults && input.toolResults.length > 0) {
    const job = { ...base, sessionId: at.sessionId, ticketId, toolResults: input.toolResults };
    await trx.insertInto("pending_jobs").values(toolResultsJob(job, now)).execute();
  }
  const closed = await closeSessions(trx, {
    projectId: actor.projectId,
    sessionIds: [at.sessionId],
    status: "complete",
    byAgentId: actor.agentId,
    reason: "handoff",
    now,
  });
  if (closed.length === 0) {
    throw fail.conflict(`Cannot hand off session "${at.sessionId}": it closed during the call`);
  }
  await recordEvent(trx, {
    projectId: actor.projectId,
    kind: "handoff.completed",
    entityType: "session",
    entityId: at.sessionId,
    agentId: actor.agentId,
    data: { moduleName: input.moduleName, ticketId, ticketStatus },
    now,
  });
  return {
    qa,
    advanced,
    modulesDone: await countModulesDone(trx, actor.projectId),
    nextAction: await nextActionAfterHandoff(trx, {
      projectId: actor.projectId,
      agentId: actor.agentId,
      // A token bound to the session it hands off stops working now (pairing and sub-agent tokens).
      credentialEnded: actor.sessionId === at.sessionId,
    }),
  };
}

/**
 * POST /handoff. Validates everything first, then writes in ONE transaction (see `writeHandoff`): the
 * ticket moves once, by compare-and-swap on its observed status and assignee.
 */
export async function handoff(ctx: ActorCtx, input: HandoffInput): Promise<HandoffResult> {
  const { actor, db } = ctx;
  if (actor.role !== "generator") throw notGenerator(actor);
  const session = await sessionToHandOff(db, actor, input.sessionId);
  if (session === null) return duplicate(db, actor.projectId);

  const project = await db.selectFrom("projects").select(["review_mode", "settings"])
    .where("id", "=", actor.projectId).executeTakeFirstOrThrow();
  const now = ctx.clock.now();
  const { ticket, adopt } = await ticketToHandOff(db, actor, input.ticketId, now);
  const { touched, entries, storedPrs } = await loadEvidence(db, actor, session.id, ticket, now);
  const artifacts = input.artifacts ?? [];
  const warnings = handoffWarnings({
    ticket: ticket ? { verificationCommand: ticket.verification_command } : null,
    entries,
    releasedFiles: touched,
    artifacts: pullRequestViews(artifacts, storedPrs),
  });
  const at = { actor, sessionId: session.id, now };
  const coverage = await coverageOf(db, { ...at, strict: project.settings.requireClaimCoverage === true }, {
    input,
    touched,
    warnings: warnings.warnings,
  });
  const target = targetOf(project, ticket, touched, input.diffStat);
  const firstPr = artifacts.find((a) => a.type === "pull_request");
  const review = ticket && target ? reviewHandoffOf(ticket, target, input, touched, firstPr) : null;
  const reviewHandoff = review && coverage ? { ...review, coverage } : review;
  const plan = { input, artifacts, ticket, adopt, target, reviewHandoff, coverage };
  const written = await db.transaction().execute((trx) => writeHandoff(trx, at, plan)).catch(async (err) => {
    // A concurrent handoff of the same session won the race (its commit moved the ticket or closed the
    // session under this one, which rolled back): answer as the repeat would (HAND-040), not 409.
    if (err instanceof DomainError && err.kind === "conflict" && await hasDone(db, session.id)) return null;
    throw err;
  });
  if (written === null) return duplicate(db, actor.projectId);
  const suggestions = handoffSuggestions(ticket, input, artifacts);
  const result = handoffResponse({
    ticket,
    target,
    mode: project.review_mode,
    written,
    warnings,
    suggestions,
    firstPr,
  });
  return coverage ? { ...result, coverage } : result;
}

/** Issue 25: the coverage receipt when `changedFiles` was sent (its warning joins the others), else null. */
async function coverageOf(
  db: DbOrTrx,
  at: HandoffAt & { strict: boolean },
  p: { input: HandoffInput; touched: string[]; warnings: string[] },
): Promise<Coverage | null> {
  const changed = changedEntries(p.input);
  if (!changed) return null;
  const { coverage, warning } = await handoffCoverage(db, at, changed, p.touched);
  if (warning) p.warnings.push(warning);
  return coverage;
}
