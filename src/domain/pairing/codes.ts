import type { AgentRole } from "@/db/tables/foundation.ts";
import type { DbOrTrx, Trx } from "@/db/database.ts";
import { recordEvent } from "@/domain/core/record-event.ts";
import { hashPairingCode, randomPairingCode } from "@/domain/core/crypto.ts";

/** Code lifetimes (spec: Pairing code). */
export const ADMIN_CODE_TTL_SECONDS = 5 * 60;
export const ORCHESTRATOR_CODE_TTL_SECONDS = 3600 as const;
/** The agent that consumed a code may present it again for this long after first use. */
export const CODE_REUSE_WINDOW_MS = 3600_000;
export const CODE_MAX_STRIKES = 3;

/** Upper-cases and strips to letters and digits: `abcd-1234` matches `ABCD1234`. */
export function normalizeCode(code: string): string {
  return code.toUpperCase().replace(/[^A-Z0-9]/g, "");
}

export interface IssueCodeInput {
  projectId: string;
  agentName?: string | null | undefined;
  agentId?: string | null | undefined;
  role?: AgentRole | undefined;
  platform?: string | null | undefined;
  model?: string | null | undefined;
  issuedByAgentId?: string | null | undefined;
  ttlSeconds: number;
  now: Date;
}

export interface IssuedCode {
  code: string;
  expiresAt: string;
  ttlSeconds: number;
}

/**
 * Stores a fresh pairing code (retrying the rare collision) and returns it. A code whose agentName names
 * an existing agent of the project is issued for that agent: it pairs as that agent (AGENT_REVOKED,
 * AGENT_NOT_FOUND when it was revoked or deleted meanwhile).
 */
export async function issuePairingCode(db: DbOrTrx, input: IssueCodeInput): Promise<IssuedCode> {
  const expiresAt = new Date(input.now.getTime() + input.ttlSeconds * 1000);
  const project = await db.selectFrom("projects").select("org_id").where("id", "=", input.projectId)
    .executeTakeFirst();
  let agentId = input.agentId ?? null;
  if (!agentId && input.agentName) {
    const named = await db.selectFrom("agents").select("id").where("project_id", "=", input.projectId)
      .where((eb) => eb(eb.fn("lower", ["name"]), "=", input.agentName!.toLowerCase())).executeTakeFirst();
    agentId = named?.id ?? null;
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    const code = randomPairingCode();
    const inserted = await db.insertInto("pairing_codes").values({
      id: crypto.randomUUID(),
      code_hash: hashPairingCode(code),
      project_id: input.projectId,
      org_id: project?.org_id ?? null,
      agent_id: agentId,
      agent_name: input.agentName ?? null,
      role: input.role ?? "generator",
      platform: input.platform ?? null,
      model: input.model ?? null,
      issued_by_agent_id: input.issuedByAgentId ?? null,
      created_at: input.now,
      expires_at: expiresAt,
    }).onConflict((oc) => oc.column("code_hash").doNothing()).returning("id").executeTakeFirst();
    if (inserted) return { code, expiresAt: expiresAt.toISOString(), ttlSeconds: input.ttlSeconds };
  }
  throw new Error("Cannot issue a pairing code: no free code after 5 attempts");
}

/**
 * An agent of the project issues a code (an orchestrator over REST, an admin on the dashboard): the code
 * and its `pairing_code.issued` event, in the caller's transaction.
 */
export async function issueAgentCode(
  trx: Trx,
  input: IssueCodeInput & { issuedByAgentId: string },
  via?: "dashboard",
): Promise<IssuedCode> {
  const code = await issuePairingCode(trx, input);
  await recordEvent(trx, {
    projectId: input.projectId,
    kind: "pairing_code.issued",
    entityType: "pairing_code",
    entityId: null,
    agentId: input.issuedByAgentId,
    data: {
      agentName: input.agentName ?? null,
      role: input.role,
      expiresAt: code.expiresAt,
      ...(via ? { by: via } : {}),
    },
    now: input.now,
  });
  return code;
}
