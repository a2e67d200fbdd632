import type { z } from "zod";
import type { ConnectBody } from "@/contracts/pairing.ts";
import { sql } from "kysely";
import type { Trx } from "@/db/database.ts";
import type { AgentRole, Plan } from "@/db/tables/foundation.ts";
import { writeSystemEntry } from "@/domain/core/system-entry.ts";
import { projectPhase, workqueue } from "@/domain/projects/overview.ts";
import { completeOpenSessions, openPairingSession } from "@/domain/sessions/open.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import { hitCounter } from "@/domain/core/counters.ts";
import { hashPairingCode, randomSecret, verifyPassword } from "@/domain/core/crypto.ts";
import { DomainError, recovery } from "@/domain/core/errors.ts";
import { CODE_MAX_STRIKES, normalizeCode } from "./codes.ts";
import { agentProfile, codeUseOf, passwordRequired, targetRefusal, wrongPassword } from "./connect-plan.ts";
import { pairingContext } from "@/domain/core/pairing-context.ts";
import { loggableError } from "@/shared/log-safe.ts";

/** POST /pair/connect's body, as the route has parsed it. */
export type ConnectInput = z.output<typeof ConnectBody>;

/** Agents per project by plan (documented design, PAIR-029); null is unlimited. */
export const AGENT_LIMITS: Record<Plan, number | null> = {
  free: 10,
  builder: 25,
  growth: 100,
  team: 500,
  enterprise: null,
};
export const PAIRING_ATTEMPTS_PER_IP = 10;
export const PAIRING_IP_WINDOW_MS = 5 * 60_000;

const newCodeRecovery = recovery(
  "REQUEST_NEW_PAIRING_CODE",
  "POST /admin/projects/{projectId}/pairing-codes",
  "Ask a project admin (or your orchestrator, POST /pair/code) for a new pairing code",
);

/** The code was consumed by a concurrent request after this one read it (rolled back, then retried once). */
class LostRace extends Error {
  constructor() {
    super("pairing code consumed concurrently");
  }
}

function invalidCode(): DomainError {
  return new DomainError(
    "unauthenticated",
    "INVALID_CODE",
    "Pairing code is unknown, expired, used or invalidated",
    {
      recovery: newCodeRecovery,
    },
  );
}

/**
 * Pairs an agent with a code (spec: POST /pair/connect). An attempt "against" a code is a request
 * naming an existing code that fails: a wrong password, or a used code presented by another agent.
 * Three such strikes invalidate the code. "The same agent" on reuse is the agent that consumed the
 * code, recognised by its name (case-insensitive), or any request for a code issued for that agent.
 */
export async function connect(ctx: ServiceCtx, input: ConnectInput, clientIp: string) {
  const now = ctx.clock.now();
  try {
    const attempts = await hitCounter(ctx.db, `pair:ip:${clientIp}`, PAIRING_IP_WINDOW_MS, now);
    if (attempts.count > PAIRING_ATTEMPTS_PER_IP) {
      const retryAfter = Math.max(1, Math.ceil((attempts.resetAt.getTime() - now.getTime()) / 1000));
      throw new DomainError(
        "limited",
        "RATE_LIMITED",
        "Too many pairing attempts from this address",
        undefined,
        {
          retryAfterSeconds: retryAfter,
        },
      );
    }
    try {
      return await connectWithCode(ctx, input, now);
    } catch (err) {
      if (!(err instanceof LostRace)) throw err;
      // A concurrent request consumed the code between this one's read and its write: judge this one
      // again on the code as it is now, as if it had come second (a reconnect of the same agent, or a
      // strike and INVALID_CODE for another one).
      return await connectWithCode(ctx, input, now);
    }
  } catch (err) {
    if (err instanceof DomainError) throw err;
    console.error("pairing unavailable:", loggableError(err));
    throw new DomainError("unavailable", "SERVICE_UNAVAILABLE", "Pairing is unavailable right now", {
      recovery: recovery("RETRY_LATER", "POST /pair/connect", "Retry in a few seconds", { code: "<code>" }),
    }, { retryAfterSeconds: 5 });
  }
}

async function connectWithCode(ctx: ServiceCtx, input: ConnectInput, now: Date) {
  const { code, project, org } = await loadCode(ctx, input.code);
  const requestedName = code.agent_name ?? input.agentName ?? null;
  const consumer = code.first_used_at && code.consumed_by_agent_id
    ? await ctx.db.selectFrom("agents").select(["id", "name"]).where("id", "=", code.consumed_by_agent_id)
      .executeTakeFirst()
    : undefined;
  const use = codeUseOf(code, consumer, requestedName, now);
  if (use === "strike") await strike(ctx, code.id);
  if (use === "strike" || use === "expired") throw invalidCode();
  const reconnect = use === "reconnect";
  if (project.password_hash) {
    if (!input.password) throw passwordRequired(input.code);
    if (!(await verifyPassword(input.password, project.password_hash))) {
      await strike(ctx, code.id);
      throw wrongPassword(input.code);
    }
  }
  const result = await ctx.db.transaction().execute((trx) =>
    pairAgent(trx, { code, project, org, input, requestedName, reconnect, now })
  );
  const phase = await projectPhase(ctx.db, project.id);
  const context = await pairingContext(ctx.db, {
    projectId: project.id,
    agentId: result.agent.id,
    compact: input.compact === true,
    briefVersion: project.brief_version,
    brief: project.brief,
  });
  const queue = await workqueue(ctx.db, project.id, project.ticket_prefix);
  return connectResponse(ctx.publicUrl, { project, phase, context, queue, reconnect, ...result });
}

/** The usable code, its project and organization; refuses an unknown or dead code, then a dead target. */
async function loadCode(ctx: ServiceCtx, rawCode: string) {
  const code = await ctx.db.selectFrom("pairing_codes").selectAll()
    .where("code_hash", "=", hashPairingCode(normalizeCode(rawCode))).executeTakeFirst();
  if (!code || code.invalidated_at || code.strikes >= CODE_MAX_STRIKES) throw invalidCode();
  const project = await ctx.db.selectFrom("projects").selectAll().where("id", "=", code.project_id)
    .executeTakeFirst();
  if (!project) {
    const orgGone = code.org_id &&
      !(await ctx.db.selectFrom("organizations").select("id").where("id", "=", code.org_id)
        .executeTakeFirst());
    if (orgGone) {
      throw new DomainError("not_found", "ORG_NOT_FOUND", "The code's organization no longer exists");
    }
    throw new DomainError("not_found", "PROJECT_NOT_FOUND", "The code's project no longer exists");
  }
  const org = await ctx.db.selectFrom("organizations").selectAll().where("id", "=", project.org_id)
    .executeTakeFirst();
  const refusal = targetRefusal(project, org);
  if (refusal || !org) throw refusal;
  return { code, project, org };
}
type Loaded = Awaited<ReturnType<typeof loadCode>>;

interface PairWrite extends Loaded {
  input: ConnectInput;
  requestedName: string | null;
  reconnect: boolean;
  now: Date;
}

/** In one transaction: consume the code (or lose the race), resolve and update the agent, open its session. */
async function pairAgent(trx: Trx, w: PairWrite) {
  const { code, project, reconnect, now } = w;
  if (!reconnect) {
    const consumed = await trx.updateTable("pairing_codes").set({ first_used_at: now })
      .where("id", "=", code.id).where("first_used_at", "is", null).returning("id").executeTakeFirst();
    if (!consumed) throw new LostRace();
  }
  const agent = reconnect
    ? await trx.selectFrom("agents").selectAll().where("id", "=", code.consumed_by_agent_id!)
      .executeTakeFirstOrThrow()
    : await resolveAgent(trx, {
      projectId: project.id,
      codeAgentId: code.agent_id,
      name: w.requestedName ?? `agent-${randomSecret(3).toLowerCase()}`,
      role: code.role,
      plan: w.org.plan,
      now,
    });
  if (agent.status === "revoked") {
    throw new DomainError("forbidden", "AGENT_REVOKED", `Agent "${agent.name}" has been revoked`, {
      recovery: newCodeRecovery,
    });
  }
  const profile = agentProfile(code, w.input, agent);
  const platform = profile.platform;
  await trx.updateTable("agents").set({ ...profile, status: "active", last_seen_at: now })
    .where("id", "=", agent.id).execute();
  if (!reconnect) {
    await trx.updateTable("pairing_codes").set({ consumed_by_agent_id: agent.id }).where("id", "=", code.id)
      .execute();
  }
  await completeOpenSessions(trx, agent.id, now);
  const session = await openPairingSession(trx, {
    projectId: project.id,
    agentId: agent.id,
    role: agent.role,
    now,
  });
  await writeSystemEntry(trx, {
    projectId: project.id,
    type: "AGENT_JOINED",
    content: `${agent.name} ${reconnect ? "reconnected" : "joined"} (${platform ?? "unknown platform"})`,
    agentId: agent.id,
    sessionId: session.sessionId,
    payload: { platform, role: agent.role, reconnected: reconnect },
    now,
  });
  return { agent: { ...agent, platform }, session };
}

/** PAIR-018: the /pair/connect data. */
function connectResponse(
  base: string,
  r: {
    project: Loaded["project"];
    phase: Awaited<ReturnType<typeof projectPhase>>;
    context: Awaited<ReturnType<typeof pairingContext>>;
    queue: Awaited<ReturnType<typeof workqueue>>;
    reconnect: boolean;
    agent: { id: string; name: string; platform: string | null; role: AgentRole };
    session: { sessionToken: string; sessionId: string };
  },
) {
  const { project, agent, reconnect } = r;
  return {
    status: reconnect ? "reconnected" as const : "connected" as const,
    sessionToken: r.session.sessionToken,
    sessionId: r.session.sessionId,
    agent: { id: agent.id, name: agent.name, platform: agent.platform },
    project: { id: project.id, name: project.name, phase: r.phase.phase, subphase: r.phase.subphase },
    docsUrl: `${base}/docs`,
    issuesUrl: `${base}/api/issue`,
    schemaUrl: `${base}/openapi.json`,
    mcpUrl: `${base}/mcp`,
    ticketPrefix: project.ticket_prefix,
    context: r.context,
    workqueue: r.queue,
    message: `${reconnect ? "Reconnected" : "Connected"} as ${agent.name} (${agent.role}) to ` +
      `${project.name}. Send "Authorization: Bearer <sessionToken>" and start with GET /api/context.`,
  };
}

async function strike(ctx: ServiceCtx, codeId: string): Promise<void> {
  await ctx.db.updateTable("pairing_codes")
    .set({
      strikes: sql`strikes + 1`,
      invalidated_at:
        sql`CASE WHEN strikes + 1 >= ${CODE_MAX_STRIKES} THEN ${ctx.clock.now()}::timestamptz ELSE invalidated_at END`,
    })
    .where("id", "=", codeId).execute();
}

async function resolveAgent(
  trx: Trx,
  input: {
    projectId: string;
    codeAgentId: string | null;
    name: string;
    role: AgentRole;
    plan: Plan;
    now: Date;
  },
) {
  if (input.codeAgentId) {
    const agent = await trx.selectFrom("agents").selectAll().where("id", "=", input.codeAgentId)
      .executeTakeFirst();
    if (!agent) {
      throw new DomainError(
        "not_found",
        "AGENT_NOT_FOUND",
        "The agent this code was issued for no longer exists",
      );
    }
    if (agent.status !== "revoked" && agent.role !== input.role) {
      await trx.updateTable("agents").set({ role: input.role }).where("id", "=", agent.id).execute();
      return { ...agent, role: input.role };
    }
    return agent;
  }
  const byName = () =>
    trx.selectFrom("agents").selectAll().where("project_id", "=", input.projectId)
      .where((eb) => eb(eb.fn("lower", ["name"]), "=", input.name.toLowerCase())).executeTakeFirst();
  const existing = await byName();
  if (existing) {
    if (existing.status !== "revoked" && existing.role !== input.role) {
      await trx.updateTable("agents").set({ role: input.role }).where("id", "=", existing.id).execute();
      return { ...existing, role: input.role };
    }
    return existing;
  }
  const limit = AGENT_LIMITS[input.plan];
  if (limit !== null) {
    const { count } = await trx.selectFrom("agents").select(sql<number>`count(*)::int`.as("count"))
      .where("project_id", "=", input.projectId).where("status", "!=", "revoked").executeTakeFirstOrThrow();
    if (count >= limit) {
      throw new DomainError(
        "forbidden",
        "AGENT_LIMIT",
        `The project already has ${count} agents, the ${input.plan} plan's limit`,
        {
          limit,
        },
      );
    }
  }
  await trx.insertInto("agents").values({
    id: crypto.randomUUID(),
    project_id: input.projectId,
    user_id: null,
    name: input.name,
    platform: null,
    model: null,
    company: null,
    role: input.role,
    partner_managed_session_id: null,
    created_at: input.now,
  }).onConflict((oc) => oc.expression(sql`project_id, lower(name)`).doNothing()).execute();
  const created = await byName();
  if (!created) throw new Error("Cannot create agent: vanished after insert");
  return created;
}
