import { sql } from "kysely";
import type { DbOrTrx } from "@/db/database.ts";
import { REVIEW_STATUSES } from "@/domain/core/workflow.ts";
import type { NextAction } from "@/shared/vocabulary.ts";

export type { NextAction } from "@/shared/vocabulary.ts";

const PICKABLE = ["backlog", "sprint_backlog", "claimed"];
const ACTIVE = ["in_progress", "blocked", "changes_requested"];

/**
 * What the agent should do after a handoff, first match wins:
 * RESUME_WORK (another ticket of yours is in progress, blocked or has changes requested);
 * PICK_TICKET (an unassigned, agent-movable ticket waits in backlog, sprint_backlog or claimed);
 * REQUEST_BRIEF (no ticket to pick and the brief is blank); CREATE_TICKETS (the project has no ticket);
 * PROJECT_COMPLETE (every ticket is done or cancelled); WAIT (tickets await review);
 * ASSIST (other agents have work in progress); ALL_DONE (what remains is human-only or assigned elsewhere).
 * With `credentialEnded` (the caller's token was bound to the session it handed off), the message starts
 * by saying so and that the next call needs a new pairing, so it never sends the agent to a call that 401s.
 */
export async function nextActionAfterHandoff(
  db: DbOrTrx,
  input: { projectId: string; agentId: string; credentialEnded?: boolean },
): Promise<NextAction> {
  const next = await nextForProject(db, input);
  if (!input.credentialEnded) return next;
  // Every call the message names needs a credential: the one that handed off its session is closed.
  return {
    ...next,
    message: "This session is over and its token no longer works: pair again with a new code " +
      `(POST /pair/connect), then: ${next.message}`,
  };
}

async function nextForProject(
  db: DbOrTrx,
  input: { projectId: string; agentId: string },
): Promise<NextAction> {
  const rows = await db.selectFrom("tickets")
    .select(["status", "assignee_agent_id", "human_only", sql<number>`count(*)::int`.as("n")])
    .where("project_id", "=", input.projectId)
    .groupBy(["status", "assignee_agent_id", "human_only"])
    .execute();
  const count = (pred: (r: typeof rows[number]) => boolean) =>
    rows.filter(pred).reduce((sum, r) => sum + Number(r.n), 0);
  const mine = count((r) => r.assignee_agent_id === input.agentId && ACTIVE.includes(r.status));
  if (mine > 0) {
    return { action: "RESUME_WORK", message: `You still have ${mine} ticket(s) in progress: resume them` };
  }
  const pickable = count((r) => r.assignee_agent_id === null && !r.human_only && PICKABLE.includes(r.status));
  if (pickable > 0) {
    return {
      action: "PICK_TICKET",
      message: `${pickable} unassigned ticket(s) are ready: pick one from GET /board and POST /begin`,
    };
  }
  const project = await db.selectFrom("projects").select("brief_version").where("id", "=", input.projectId)
    .executeTakeFirst();
  if ((project?.brief_version ?? 0) === 0) {
    return {
      action: "REQUEST_BRIEF",
      message: "The project brief is blank: ask for one or write it (PATCH /brief)",
    };
  }
  const total = count(() => true);
  if (total === 0) {
    return {
      action: "CREATE_TICKETS",
      message: "The board is empty: create tickets from the brief (POST /ticket)",
    };
  }
  const open = count((r) => r.status !== "done" && r.status !== "cancelled");
  if (open === 0) {
    return { action: "PROJECT_COMPLETE", message: "Every ticket is done or cancelled" };
  }
  if (count((r) => (REVIEW_STATUSES as readonly string[]).includes(r.status)) > 0) {
    return { action: "WAIT", message: "Tickets are waiting for review: check GET /context again later" };
  }
  if (count((r) => r.assignee_agent_id !== null && ACTIVE.includes(r.status)) > 0) {
    return { action: "ASSIST", message: "Other agents have work in progress: offer help in a thread" };
  }
  return {
    action: "ALL_DONE",
    message: "Nothing left for you: the remaining tickets are human-only or assigned",
  };
}
