import type { Actor } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { fail, recovery } from "@/domain/core/errors.ts";
import type { SessionRow } from "./serialize.ts";

export interface LoadedSession {
  row: SessionRow;
  agentName: string;
  /** The caller's own session: same agent and same sub-agent identity. */
  own: boolean;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function notFound(sessionId: string) {
  return fail.notFound(`Session ${sessionId} not found`);
}

export function isOwnSession(actor: Actor, row: Pick<SessionRow, "agent_id" | "sub_agent_name">): boolean {
  return row.agent_id === actor.agentId && (row.sub_agent_name ?? null) === (actor.subAgentName ?? null);
}

/**
 * Loads a session of the caller's project. A session of another project, or an id that is not a
 * UUID, answers 404 like an unknown one: ids of other projects are never confirmed.
 */
export async function loadSession(ctx: ActorCtx, sessionId: string): Promise<LoadedSession> {
  if (!UUID.test(sessionId)) throw notFound(sessionId);
  const found = await ctx.db.selectFrom("sessions as s").innerJoin("agents as a", "a.id", "s.agent_id")
    .selectAll("s").select("a.name as agentName")
    .where("s.id", "=", sessionId).where("s.project_id", "=", ctx.actor.projectId).executeTakeFirst();
  if (!found) throw notFound(sessionId);
  const { agentName, ...row } = found;
  return { row, agentName, own: isOwnSession(ctx.actor, row) };
}

/**
 * A session the caller may read: its own, or any in the project for an orchestrator. Others answer
 * 404 NOT_FOUND, as POST /session/complete does (SESS-050).
 */
export async function loadReadableSession(ctx: ActorCtx, sessionId: string): Promise<LoadedSession> {
  const loaded = await loadSession(ctx, sessionId);
  if (!loaded.own && ctx.actor.role !== "orchestrator") throw notFound(sessionId);
  return loaded;
}

/**
 * A session the caller writes to (activity, report): its own only. Someone else's session answers
 * 404 NOT_FOUND, or 403 FORBIDDEN for an orchestrator, who can see it but not write to it (SESS-061).
 */
export async function loadOwnSession(ctx: ActorCtx, sessionId: string, what: string): Promise<LoadedSession> {
  const loaded = await loadReadableSession(ctx, sessionId);
  if (!loaded.own) {
    throw fail.forbidden(`Cannot post ${what} to another agent's session`, {
      guidance: "Post to your own session (GET /me gives sessionId); sub-agents post to theirs",
      recovery: recovery(
        "PROVIDE_SESSION_ID",
        "GET /me",
        "Use your own sessionId from GET /me (or from pairing / sub-agent minting)",
      ),
    });
  }
  return loaded;
}
