import type { DbOrTrx } from "@/db/database.ts";
import type { AgentRole } from "@/db/tables/foundation.ts";
import type { Actor } from "@/domain/core/actor.ts";
import { DomainError, fail, recovery } from "@/domain/core/errors.ts";
import type { TicketRow } from "@/domain/core/ticket-serialize.ts";
import type { ReviewMode } from "@/domain/core/workflow.ts";

/** How the caller relates to a ticket. An agent and its sub-agents share one identity (the agent id). */
export interface Relation {
  orchestrator: boolean;
  assignee: boolean;
  reviewer: boolean;
  creator: boolean;
}

export function relationOf(actor: Actor, ticket: TicketRow): Relation {
  return {
    orchestrator: actor.role === "orchestrator",
    assignee: ticket.assignee_agent_id !== null && ticket.assignee_agent_id === actor.agentId,
    reviewer: ticket.reviewer_agent_id !== null && ticket.reviewer_agent_id === actor.agentId,
    creator: ticket.created_by_agent_id !== null && ticket.created_by_agent_id === actor.agentId,
  };
}

/** Agents can neither assign nor move a human-only ticket (spec: 403 with code VALIDATION_ERROR). */
export function assertNotHumanOnly(ticket: TicketRow): void {
  if (!ticket.human_only) return;
  throw new DomainError(
    "forbidden",
    "VALIDATION_ERROR",
    "This ticket is human-only: agents cannot change or move it",
    {
      ticketId: ticket.id,
      humanOnly: true,
    },
  );
}

/** 403 for a caller without a right on the ticket, with who does have it. */
export function notYours(ticket: TicketRow, actor: Actor, what: string): DomainError {
  const unassigned = ticket.assignee_agent_id === null;
  return fail.forbidden(`Cannot ${what}: only the assignee or an orchestrator may do that`, {
    assigneeAgentId: ticket.assignee_agent_id,
    reviewerAgentId: ticket.reviewer_agent_id,
    callerAgentId: actor.agentId,
    recovery: unassigned
      ? recovery(
        "REFRESH_TICKET_STATE",
        "PATCH /ticket",
        "Claim the unassigned ticket first with assignToSelf",
        {
          ticketId: ticket.id,
          assignToSelf: true,
        },
      )
      : recovery("REFRESH_TICKET_STATE", "GET /board", "Pick a ticket that is unassigned or yours", null),
  });
}

/** 409 for a claim of a ticket another agent holds. */
export function heldByAnother(ticket: TicketRow, holderName: string | null): DomainError {
  return fail.conflict(
    `The ticket is assigned to ${holderName ?? "another agent"}; it cannot be claimed`,
    {
      ticketId: ticket.id,
      assigneeAgentId: ticket.assignee_agent_id,
      assigneeName: holderName,
      recovery: recovery("REFRESH_TICKET_STATE", "GET /board", "Pick an unassigned ticket", null),
    },
  );
}

const REVIEWER_ROLES_BY_RISK: Record<string, readonly AgentRole[]> = {
  local: ["generator", "evaluator", "orchestrator"],
  "shared-state": ["evaluator", "orchestrator"],
  irreversible: ["evaluator", "orchestrator"],
};

/** Roles that may review a ticket of this risk class (design: TKT-016). */
export function reviewerRoles(riskClass: string | null): readonly AgentRole[] {
  return REVIEWER_ROLES_BY_RISK[riskClass ?? "local"] ?? REVIEWER_ROLES_BY_RISK.local!;
}

/**
 * Reviewer routing on designation (design: TKT-016): the reviewer is an active agent of the project,
 * not the assignee, and of a role the ticket's risk class accepts (local: generator, evaluator or
 * orchestrator; shared-state and irreversible: evaluator or orchestrator). 400 VALIDATION_ERROR otherwise.
 */
export async function checkReviewerDesignation(
  db: DbOrTrx,
  ticket: TicketRow,
  reviewerAgentId: string,
  assigneeAfter: string | null,
): Promise<void> {
  const agent = await db.selectFrom("agents").select(["id", "role", "status", "name"])
    .where("id", "=", reviewerAgentId).where("project_id", "=", ticket.project_id).executeTakeFirst();
  const refuse = (message: string, extra: Record<string, unknown> = {}) =>
    fail.validation(message, {
      field: "reviewerAgentId",
      reviewerAgentId,
      riskClass: ticket.risk_class,
      allowedRoles: reviewerRoles(ticket.risk_class),
      ...extra,
    });
  if (!agent || agent.status === "revoked") {
    throw refuse("reviewerAgentId is not an active agent of this project");
  }
  if (agent.id === assigneeAfter) throw refuse("The assignee cannot review their own ticket");
  if (!reviewerRoles(ticket.risk_class).includes(agent.role)) {
    throw refuse(
      `A ${ticket.risk_class ?? "local"} ticket needs a reviewer with role ${
        reviewerRoles(ticket.risk_class).join(" or ")
      }; ${agent.name} is ${agent.role}`,
      { reviewerRole: agent.role },
    );
  }
}

/**
 * Who may approve a ticket in review (design: TKT-016, TKT-077): an orchestrator; the designated
 * reviewer; or, when none is designated and the mode is not `strict`, an agent other than the
 * assignee whose role the risk class accepts (an `irreversible` ticket always needs a designated
 * reviewer or an orchestrator). In `light` the assignee may approve too. Returns null when allowed,
 * else the refusal.
 */
export function approvalRefusal(actor: Actor, ticket: TicketRow, mode: ReviewMode): DomainError | null {
  const rel = relationOf(actor, ticket);
  if (rel.orchestrator || rel.reviewer) return null;
  if (mode === "light" && rel.assignee) return null;
  const designate = recovery(
    "APPROVE_VIA_ENDPOINT",
    "PATCH /ticket",
    "The assignee or an orchestrator designates a reviewer (reviewerAgentId), who then approves",
    { ticketId: ticket.id, reviewerAgentId: "<reviewer agent id>" },
  );
  if (rel.assignee) {
    return fail.forbidden("The assignee cannot approve their own ticket outside review mode light", {
      reviewMode: mode,
      recovery: designate,
    });
  }
  if (ticket.reviewer_agent_id !== null) {
    return fail.forbidden("Only the ticket's designated reviewer or an orchestrator may approve it", {
      reviewerAgentId: ticket.reviewer_agent_id,
    });
  }
  if (mode === "strict" || ticket.risk_class === "irreversible") {
    return fail.forbidden(
      mode === "strict"
        ? "Review mode strict: only a designated reviewer or an orchestrator may approve"
        : "An irreversible ticket is approved only by its designated reviewer or an orchestrator",
      { reviewMode: mode, riskClass: ticket.risk_class, recovery: designate },
    );
  }
  if (!reviewerRoles(ticket.risk_class).includes(actor.role)) {
    return fail.forbidden(
      `A ${ticket.risk_class ?? "local"} ticket is reviewed by role ${
        reviewerRoles(ticket.risk_class).join(" or ")
      }`,
      {
        riskClass: ticket.risk_class,
        allowedRoles: reviewerRoles(ticket.risk_class),
        actualRole: actor.role,
      },
    );
  }
  return null;
}

/** TKT-102: orchestrators coordinate; they never claim a ticket (same shape as a role refusal). */
export function orchestratorCannotClaim(): DomainError {
  return fail.forbidden("Orchestrators cannot claim tickets: delegate the work to a generator sub-agent", {
    guidance:
      "Orchestrators coordinate and delegate: mint a generator sub-agent session and let it claim the ticket",
    requiredRole: "generator",
    actualRole: "orchestrator",
    recovery: recovery(
      "MINT_SUBAGENT_SESSION",
      "POST /subagent/session",
      "Mint a generator sub-agent and claim the ticket with its token",
      { name: "<worker-name>", role: "generator" },
    ),
  });
}
