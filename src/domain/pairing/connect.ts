import { sql } from "kysely";
import type { Trx } from "@/db/database.ts";
import type { AgentRole, Plan } from "@/db/tables/foundation.ts";
import { toJson } from "@/db/tables/types.ts";
import { writeSystemEntry } from "@/domain/ledger/system-entry.ts";
import { projectPhase, workqueue } from "@/domain/projects/overview.ts";
import { completeOpenSessions, openPairingSession } from "@/domain/sessions/open.ts";
import type { ServiceCtx } from "@/domain/shared/context.ts";
import { hitCounter } from "@/domain/shared/counters.ts";
import { hashPairingCode, randomSecret, verifyPassword } from "@/domain/shared/crypto.ts";
import { DomainError, recovery } from "@/domain/shared/errors.ts";
import { CODE_MAX_STRIKES, CODE_REUSE_WINDOW_MS, normalizeCode } from "./codes.ts";
import { inferCompany } from "./company.ts";
import { pairingContext } from "./pairing-context.ts";
import { loggableError } from "@/shared/log-safe.ts";

export interface ConnectInput {
  code: string;
  password?: string | undefined;
  agentName?: string | undefined;
  platform?: string | undefined;
  model?: string | undefined;
  company?: string | undefined;
  capabilities?: string[] | undefined;
  compact?: boolean | undefined;
  partnerManagedSessionId?: string | undefined;
}

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
  const code = await ctx.db.selectFrom("pairing_codes").selectAll()
    .where("code_hash", "=", hashPairingCode(normalizeCode(input.code))).executeTakeFirst();
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
  if (!org) throw new DomainError("not_found", "ORG_NOT_FOUND", "The code's organization no longer exists");
  if (project.status !== "active") {
    throw new DomainError("forbidden", "PROJECT_INACTIVE", `Project "${project.name}" is ${project.status}`);
  }
  if (org.status !== "active") {
    throw new DomainError("forbidden", "ORG_SUSPENDED", "The organization is suspended");
  }

  const requestedName = code.agent_name ?? input.agentName ?? null;
  let reconnect = false;
  if (code.first_used_at) {
    const consumer = code.consumed_by_agent_id
      ? await ctx.db.selectFrom("agents").select(["id", "name"]).where("id", "=", code.consumed_by_agent_id)
        .executeTakeFirst()
      : undefined;
    const sameAgent = consumer !== undefined &&
      (code.agent_id !== null ||
        (requestedName !== null && requestedName.toLowerCase() === consumer.name.toLowerCase()));
    const inWindow = now.getTime() - code.first_used_at.getTime() <= CODE_REUSE_WINDOW_MS;
    if (!sameAgent || !inWindow) {
      await strike(ctx, code.id);
      throw invalidCode();
    }
    reconnect = true;
  } else if (code.expires_at <= now) {
    throw invalidCode();
  }

  if (project.password_hash) {
    if (!input.password) {
      throw new DomainError(
        "unauthenticated",
        "PASSWORD_REQUIRED",
        "This project needs its pairing password",
        {
          recovery: recovery(
            "RETRY_WITH_PASSWORD",
            "POST /pair/connect",
            "Send the project's pairing password",
            {
              code: input.code,
              password: "<project password>",
            },
          ),
        },
      );
    }
    if (!(await verifyPassword(input.password, project.password_hash))) {
      await strike(ctx, code.id);
      throw new DomainError(
        "forbidden",
        "INVALID_PASSWORD",
        "Wrong pairing password; the code was not consumed",
        {
          recovery: recovery("RETRY_WITH_PASSWORD", "POST /pair/connect", "Check the password and retry", {
            code: input.code,
            password: "<project password>",
          }),
        },
      );
    }
  }

  const result = await ctx.db.transaction().execute(async (trx) => {
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
        name: requestedName ?? `agent-${randomSecret(3).toLowerCase()}`,
        role: code.role,
        plan: org.plan,
        now,
      });
    if (agent.status === "revoked") {
      throw new DomainError("forbidden", "AGENT_REVOKED", `Agent "${agent.name}" has been revoked`, {
        recovery: newCodeRecovery,
      });
    }
    // A code minted for a platform and model (orchestrator or admin) fixes them; otherwise the agent says.
    const platform = code.platform ?? input.platform ?? agent.platform;
    await trx.updateTable("agents").set({
      platform,
      model: code.model ?? input.model ?? agent.model,
      company: input.company ?? inferCompany(platform) ?? agent.company,
      ...(input.capabilities ? { capabilities: toJson(input.capabilities) } : {}),
      ...(input.partnerManagedSessionId ? { partner_managed_session_id: input.partnerManagedSessionId } : {}),
      status: "active",
      last_seen_at: now,
    }).where("id", "=", agent.id).execute();
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
  });

  const phase = await projectPhase(ctx.db, project.id);
  const context = await pairingContext(ctx.db, {
    projectId: project.id,
    agentId: result.agent.id,
    compact: input.compact === true,
    briefVersion: project.brief_version,
    brief: project.brief,
  });
  const base = ctx.publicUrl;
  return {
    status: reconnect ? "reconnected" as const : "connected" as const,
    sessionToken: result.session.sessionToken,
    sessionId: result.session.sessionId,
    agent: { id: result.agent.id, name: result.agent.name, platform: result.agent.platform },
    project: { id: project.id, name: project.name, phase: phase.phase, subphase: phase.subphase },
    docsUrl: `${base}/docs`,
    issuesUrl: `${base}/api/issue`,
    schemaUrl: `${base}/openapi.json`,
    mcpUrl: `${base}/mcp`,
    ticketPrefix: project.ticket_prefix,
    context,
    workqueue: await workqueue(ctx.db, project.id, project.ticket_prefix),
    message: `${reconnect ? "Reconnected" : "Connected"} as ${result.agent.name} (${result.agent.role}) to ` +
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
