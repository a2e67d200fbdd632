import type { Insertable } from "kysely";
import type { Trx } from "@/db/database.ts";
import type { AcceptanceCriterion, TicketsTable } from "@/db/tables/work.ts";
import { toJson } from "@/db/tables/types.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { writeSystemEntry } from "@/domain/core/system-entry.ts";
import { type Actor, actorDisplayName } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { type DomainError, fail, recovery } from "@/domain/core/errors.ts";
import { type PossibleDuplicate, possibleDuplicates } from "./duplicates.ts";
import { ticketNextAction } from "./next-action.ts";
import { ticketNotFound } from "@/domain/core/ticket-refs.ts";
import { type Priority, type TicketRow, toTicket, withPriority } from "@/domain/core/ticket-serialize.ts";
import { boardColumns } from "@/domain/core/workflow.ts";
import { isForeignKeyViolation, isUniqueViolation } from "@/db/errors.ts";
import { loadProject, type ProjectInfo, ticketUrl } from "./project-info.ts";

export interface CreateTicketFields {
  title: string;
  type?: string | undefined;
  description?: string | null | undefined;
  expectedFiles?: string[] | undefined;
  doneDefinition?: string | undefined;
  verificationCommand?: string | undefined;
  riskClass?: "local" | "shared-state" | "irreversible" | undefined;
  acceptanceCriteria?:
    | Array<{ title?: string | undefined; text?: string | undefined; [k: string]: unknown }>
    | undefined;
  outOfScope?: string | undefined;
  parentId?: string | null | undefined;
  branch?: string | null | undefined;
  tags?: string[] | undefined;
  priority?: Priority | undefined;
  assignToSelf?: boolean | undefined;
  sprintId?: string | null | undefined;
  idempotencyKey?: string | undefined;
}

/** `single`: POST /ticket. `batch`: a row of POST /ticket/batch (criteria, branch, priority not applied). */
export type CreateMode = "single" | "batch";

export type CreateOutcome =
  | { kind: "created"; row: TicketRow; project: ProjectInfo; assigneeName: string | null }
  | { kind: "idempotent"; row: TicketRow; project: ProjectInfo };

/** Tickets nest at most three levels (epic, feature, story). */
export const MAX_NESTING = 3;
export const MAX_TAGS = 10;

/** Thrown inside the transaction to roll back when another request already created the ticket. */
class IdempotentHit extends Error {
  constructor(readonly row: TicketRow) {
    super("idempotent repeat");
  }
}

/** What a create decides before it writes: tags, initial status and acceptance criteria. */
export interface CreatePlan {
  tags: string[];
  status: string;
  criteria: AcceptanceCriterion[];
}

/** The decisions of a create, refusing bad tags (TKT tags limit); project settings are checked before. */
export function planCreate(project: ProjectInfo, input: CreateTicketFields, mode: CreateMode): CreatePlan {
  return {
    tags: ticketTags(input, mode),
    status: initialStatus(boardColumns(project.settings), mode, input.assignToSelf === true),
    criteria: mode === "batch"
      ? []
      : (input.acceptanceCriteria ?? []).map((c) => ({ ...c, title: (c.title ?? c.text ?? "").trim() })),
  };
}

/** The new ticket's row: numbered `number`, assigned to the creator with `assignToSelf`. */
export function newTicketRow(
  actor: Pick<Actor, "projectId" | "agentId" | "subAgentName">,
  input: CreateTicketFields,
  mode: CreateMode,
  plan: CreatePlan,
  at: { id: string; number: number; now: Date },
): Insertable<TicketsTable> {
  const { now } = at;
  const assign = input.assignToSelf === true;
  return {
    id: at.id,
    project_id: actor.projectId,
    number: at.number,
    title: input.title,
    description: input.description ?? null,
    type: input.type ?? null,
    tags: toJson(plan.tags),
    status: plan.status,
    expected_files: toJson(dedupe(input.expectedFiles ?? [])),
    done_definition: input.doneDefinition ?? null,
    verification_command: input.verificationCommand ?? null,
    risk_class: input.riskClass ?? null,
    out_of_scope: input.outOfScope ?? null,
    acceptance_criteria: toJson(plan.criteria),
    criteria_acknowledged_at: assign && plan.criteria.length > 0 ? now : null,
    assignee_agent_id: assign ? actor.agentId : null,
    sub_agent_name: assign ? actor.subAgentName : null,
    parent_id: input.parentId ?? null,
    branch: mode === "batch" ? null : input.branch ?? null,
    sprint_id: input.sprintId ?? null,
    created_by_agent_id: actor.agentId,
    idempotency_key: input.idempotencyKey ?? null,
    status_changed_at: now,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Creates one ticket. The per-project number is taken with `UPDATE projects SET ticket_seq = ticket_seq + 1`
 * inside the transaction: the row lock serializes concurrent creates and a rollback gives the number back,
 * so numbers are consecutive without gaps or duplicates. An `idempotencyKey` is unique per project
 * (database index `tickets_idempotency_key`) for as long as the ticket exists.
 */
export async function createTicket(
  ctx: ActorCtx,
  input: CreateTicketFields,
  mode: CreateMode,
): Promise<CreateOutcome> {
  const { actor } = ctx;
  const project = await loadProject(ctx.db, actor.projectId);
  if (input.assignToSelf && actor.role === "orchestrator") throw orchestratorCannotClaim();
  if (input.idempotencyKey) {
    const existing = await findByKey(ctx.db, actor.projectId, input.idempotencyKey);
    if (existing) return { kind: "idempotent", row: existing, project };
  }
  checkProjectSettings(project, input);
  const plan = planCreate(project, input, mode);
  const now = ctx.clock.now();
  try {
    const row = await ctx.db.transaction().execute((trx) =>
      insertTicket(trx, ctx, { input, mode, plan, project, now })
    );
    return {
      kind: "created",
      row,
      project,
      assigneeName: input.assignToSelf === true ? actor.agentName : null,
    };
  } catch (err) {
    return await afterFailedCreate(ctx, input, project, err);
  }
}

/** The create's writes: the number, the checks that need the lock, the row, its entry and event. */
async function insertTicket(
  trx: Trx,
  ctx: ActorCtx,
  c: { input: CreateTicketFields; mode: CreateMode; plan: CreatePlan; project: ProjectInfo; now: Date },
): Promise<TicketRow> {
  const { actor } = ctx;
  const { input, mode, now } = c;
  const seq = await trx.updateTable("projects").set((eb) => ({ ticket_seq: eb("ticket_seq", "+", 1) }))
    .where("id", "=", actor.projectId).returning(["ticket_seq", "brief_version"])
    .executeTakeFirstOrThrow();
  if (seq.brief_version === 0 && seq.ticket_seq === 1) throw briefRequired();
  if (input.idempotencyKey) {
    // Creates of one project are serialized by the row lock above, so this sees any committed twin.
    const twin = await findByKey(trx, actor.projectId, input.idempotencyKey);
    if (twin) throw new IdempotentHit(twin);
  }
  if (input.parentId) await checkParent(trx, actor.projectId, input.parentId);
  if (input.sprintId) await checkSprint(trx, actor.projectId, input.sprintId);
  const values = newTicketRow(actor, input, mode, c.plan, {
    id: crypto.randomUUID(),
    number: seq.ticket_seq,
    now,
  });
  const inserted = await trx.insertInto("tickets").values(values).returningAll().executeTakeFirstOrThrow();
  const ref = `${c.project.prefix}-${inserted.number}`;
  const assign = input.assignToSelf === true;
  if (assign) {
    await writeSystemEntry(trx, {
      projectId: actor.projectId,
      type: "AGENT_ASSIGNED",
      content: `${actorDisplayName(actor)} assigned to ${ref} at creation`,
      agentId: actor.agentId,
      subAgentName: actor.subAgentName,
      sessionId: actor.sessionId,
      ticketId: inserted.id,
      payload: { ticketRef: ref, assigneeAgentId: actor.agentId, via: mode === "batch" ? "batch" : "create" },
      now,
    });
  }
  await recordEvent(trx, {
    projectId: actor.projectId,
    kind: "ticket.created",
    entityType: "ticket",
    entityId: inserted.id,
    agentId: actor.agentId,
    data: {
      ticketRef: ref,
      number: inserted.number,
      title: inserted.title,
      status: c.plan.status,
      assigned: assign,
    },
    now,
  });
  return inserted;
}

/**
 * A create that rolled back: an idempotent twin (seen under the lock, or committed concurrently) answers
 * as the repeat; a parent or sprint deleted between the check and the insert answers 404.
 */
async function afterFailedCreate(
  ctx: ActorCtx,
  input: CreateTicketFields,
  project: ProjectInfo,
  err: unknown,
): Promise<CreateOutcome> {
  if (err instanceof IdempotentHit) return { kind: "idempotent", row: err.row, project };
  if (input.idempotencyKey && isUniqueViolation(err, "tickets_idempotency_key")) {
    const twin = await findByKey(ctx.db, ctx.actor.projectId, input.idempotencyKey);
    if (twin) return { kind: "idempotent", row: twin, project };
  }
  if (isForeignKeyViolation(err)) {
    if (input.parentId && !String((err as Error).message).includes("sprint")) {
      throw ticketNotFound(input.parentId);
    }
    throw fail.notFound("The sprint no longer exists", {
      recovery: recovery("LIST_SPRINTS", "GET /sprint", "List the sprints and use one's id", null),
    });
  }
  throw err;
}

/** The single-create response: the ticket, possible duplicates, next action and url. */
export async function createTicketResponse(ctx: ActorCtx, outcome: CreateOutcome) {
  const { row, project } = outcome;
  const url = ticketUrl(ctx.publicUrl, row.id);
  const nextAction = ticketNextAction(row);
  if (outcome.kind === "idempotent") {
    return {
      created: false as const,
      data: {
        id: row.id,
        number: row.number,
        ticketRef: `${project.prefix}-${row.number}`,
        status: row.status,
        createdAt: row.created_at.toISOString(),
        idempotent: true as const,
        url,
        nextAction,
      },
    };
  }
  const duplicates: PossibleDuplicate[] = await possibleDuplicates(
    ctx.db,
    project.id,
    project.prefix,
    row.title,
    row.id,
  );
  return {
    created: true as const,
    data: {
      ...toTicket(row, project.prefix, outcome.assigneeName),
      possibleDuplicates: duplicates,
      nextAction,
      url,
    },
  };
}

function orchestratorCannotClaim(): DomainError {
  return fail.forbidden("Orchestrators cannot assign tickets to themselves", {
    guidance: "Orchestrators coordinate and delegate: create the ticket unassigned and let a generator " +
      "sub-agent begin it",
    requiredRole: "generator",
    actualRole: "orchestrator",
    recovery: recovery(
      "MINT_SUBAGENT_SESSION",
      "POST /subagent/session",
      "Mint a generator sub-agent and let it claim the ticket",
      { name: "<worker-name>", role: "generator" },
    ),
  });
}

function briefRequired(): DomainError {
  return fail.unprocessable("The project has no brief yet: write it before creating the first ticket", {
    recovery: recovery(
      "WRITE_PROJECT_BRIEF",
      "PATCH /brief",
      "Write the project brief (scope, goals, stack), then create the ticket again",
      { scope: "<what the project is>", goals: "<what done looks like>", stack: "<languages, frameworks>" },
    ),
  }, "BRIEF_REQUIRED");
}

function settingsRefusal(message: string, details: Record<string, unknown>): DomainError {
  return fail.unprocessable(message, { ...details });
}

/** Project settings `requireType`, `allowedTypes`, `requireDescription` (422 VALIDATION_ERROR). */
function checkProjectSettings(project: ProjectInfo, input: CreateTicketFields): void {
  const s = project.settings;
  if (s.requireType === true && !input.type) {
    throw settingsRefusal("This project requires a ticket type", {
      field: "type",
      setting: "requireType",
      ...(Array.isArray(s.allowedTypes) ? { allowedTypes: s.allowedTypes } : {}),
    });
  }
  if (input.type && Array.isArray(s.allowedTypes) && s.allowedTypes.length > 0) {
    if (!s.allowedTypes.includes(input.type)) {
      throw settingsRefusal(`Type "${input.type}" is not allowed in this project`, {
        field: "type",
        setting: "allowedTypes",
        allowedTypes: s.allowedTypes,
      });
    }
  }
  if (s.requireDescription === true && !(input.description ?? "").trim()) {
    throw settingsRefusal("This project requires a ticket description", {
      field: "description",
      setting: "requireDescription",
    });
  }
}

/** Tags without duplicates, plus the priority tag (not applied in a batch row); at most 10 in all. */
function ticketTags(input: CreateTicketFields, mode: CreateMode): string[] {
  let tags = dedupe(input.tags ?? []);
  if (mode === "single" && input.priority) tags = withPriority(tags, input.priority);
  if (tags.length > MAX_TAGS) {
    throw fail.validation(`At most ${MAX_TAGS} tags, the priority tag included`, {
      fields: [{
        path: "tags",
        message: `At most ${MAX_TAGS} tags including priority:<level>`,
        code: "too_big",
      }],
    });
  }
  return tags;
}

/**
 * A single create starts in `backlog`; a batch row with `assignToSelf` starts in `claimed`. A custom
 * board without that column starts the ticket in its first column instead, so a status is always one
 * of the board's.
 */
export function initialStatus(columns: string[], mode: CreateMode, assignToSelf: boolean): string {
  const first = columns.includes("backlog") ? "backlog" : columns[0] ?? "backlog";
  if (mode === "batch" && assignToSelf && columns.includes("claimed")) return "claimed";
  return first;
}

async function findByKey(db: ActorCtx["db"] | Trx, projectId: string, key: string) {
  return await db.selectFrom("tickets").selectAll().where("project_id", "=", projectId)
    .where("idempotency_key", "=", key).executeTakeFirst() ?? null;
}

/**
 * The parent must be a ticket of the same project (404 TICKET_NOT_FOUND), not cancelled, and the new
 * ticket may sit at most three levels deep (epic, feature, story): 422 VALIDATION_ERROR otherwise.
 */
async function checkParent(trx: Trx, projectId: string, parentId: string): Promise<void> {
  const parent = await trx.selectFrom("tickets").select(["id", "parent_id", "status", "number"])
    .where("id", "=", parentId).where("project_id", "=", projectId).executeTakeFirst();
  if (!parent) throw ticketNotFound(parentId);
  if (parent.status === "cancelled") {
    throw fail.unprocessable("Cannot nest a ticket under a cancelled ticket", {
      field: "parentId",
      parentStatus: parent.status,
    });
  }
  let depth = 2;
  let above = parent.parent_id;
  while (above) {
    depth++;
    if (depth > MAX_NESTING) {
      throw fail.unprocessable(`Tickets nest at most ${MAX_NESTING} levels deep (epic, feature, story)`, {
        field: "parentId",
        maxDepth: MAX_NESTING,
      });
    }
    const next = await trx.selectFrom("tickets").select("parent_id").where("id", "=", above)
      .executeTakeFirst();
    above = next?.parent_id ?? null;
  }
}

/** The sprint must exist in the project (404 NOT_FOUND, LIST_SPRINTS) and still take tickets (422). */
async function checkSprint(trx: Trx, projectId: string, sprintId: string): Promise<void> {
  const sprint = await trx.selectFrom("sprints").select(["id", "status"]).where("id", "=", sprintId)
    .where("project_id", "=", projectId).executeTakeFirst();
  const listSprints = recovery(
    "LIST_SPRINTS",
    "GET /sprint",
    "List the project's sprints and use one's id",
    null,
  );
  if (!sprint) {
    throw fail.notFound(`No sprint ${sprintId} in this project`, { sprintId, recovery: listSprints });
  }
  if (sprint.status !== "planning" && sprint.status !== "active") {
    throw fail.unprocessable(`Sprint is ${sprint.status} and takes no new tickets`, {
      field: "sprintId",
      sprintStatus: sprint.status,
      recovery: listSprints,
    });
  }
}

function dedupe(values: string[]): string[] {
  return [...new Set(values)];
}
