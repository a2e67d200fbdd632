import type { ServiceCtx } from "@/domain/core/context.ts";
import { hitCounter } from "@/domain/core/counters.ts";
import { hashPairingCode } from "@/domain/core/crypto.ts";
import { CODE_MAX_STRIKES, CODE_REUSE_WINDOW_MS, normalizeCode } from "./codes.ts";

/** Prompt look-ups allowed per client address per 5 minutes (documented design). */
export const PROMPT_LOOKUPS_PER_IP = 30;
const WINDOW_MS = 5 * 60_000;

export interface PromptAnswer {
  status: 200 | 404 | 429;
  text: string;
  retryAfterSeconds?: number;
}

export const PROMPT_UNKNOWN_CODE = "Pairing code not found or expired.\n\n" +
  "This code is unknown, expired, already used or invalidated after wrong attempts. Ask a project admin " +
  "(operator API) or your orchestrator (POST /api/pair/code) for a new pairing code, then open " +
  "/api/pair/prompt?code=<new code> again.\n";

/**
 * GET /pair/prompt: the onboarding prompt for a code that can still pair (unused and unexpired, or
 * used within the one-hour reuse window). Anything else answers 404 with the same text, and never
 * reveals the project. Reading the prompt does not consume the code or count as a strike.
 */
export async function pairingPrompt(
  ctx: ServiceCtx,
  rawCode: string,
  clientIp: string,
): Promise<PromptAnswer> {
  const now = ctx.clock.now();
  const hits = await hitCounter(ctx.db, `prompt:ip:${clientIp}`, WINDOW_MS, now);
  if (hits.count > PROMPT_LOOKUPS_PER_IP) {
    const retryAfterSeconds = Math.max(1, Math.ceil((hits.resetAt.getTime() - now.getTime()) / 1000));
    return {
      status: 429,
      text: `Too many pairing prompt requests from this address. Retry in ${retryAfterSeconds} seconds.\n`,
      retryAfterSeconds,
    };
  }
  const code = await ctx.db.selectFrom("pairing_codes as c").innerJoin(
    "projects as p",
    "p.id",
    "c.project_id",
  )
    .select([
      "c.agent_name as agentName",
      "c.role",
      "c.platform",
      "c.model",
      "c.expires_at as expiresAt",
      "c.first_used_at as firstUsedAt",
      "c.strikes",
      "c.invalidated_at as invalidatedAt",
      "p.name as projectName",
      "p.ticket_prefix as prefix",
      "p.password_hash as passwordHash",
    ])
    .where("c.code_hash", "=", hashPairingCode(normalizeCode(rawCode))).executeTakeFirst();
  if (!code || code.invalidatedAt || code.strikes >= CODE_MAX_STRIKES) {
    return { status: 404, text: PROMPT_UNKNOWN_CODE };
  }
  const reuseUntil = code.firstUsedAt ? new Date(code.firstUsedAt.getTime() + CODE_REUSE_WINDOW_MS) : null;
  const usableUntil = reuseUntil ?? code.expiresAt;
  if (usableUntil <= now) return { status: 404, text: PROMPT_UNKNOWN_CODE };

  const api = `${ctx.publicUrl}/api`;
  const body: Record<string, string> = { code: normalizeCode(rawCode) };
  if (!code.agentName) body.agentName = "<your agent name>";
  if (!code.platform) body.platform = "<your platform, e.g. claude-code>";
  if (!code.model) body.model = "<your model>";
  if (code.passwordHash) body.password = "<project pairing password: ask your human>";
  const lines = [
    `You are joining the project "${code.projectName}" (ticket prefix ${code.prefix}) on an agent ` +
    `coordination service. Several AI agents share this project's board, file claims and ledger.`,
    "",
    code.agentName
      ? `This code pairs you as agent "${code.agentName}" with role ${code.role}.`
      : `This code pairs you with role ${code.role}; choose a short agent name.`,
    reuseUntil
      ? `The code was already used; only the agent that used it may reconnect with it, until ${reuseUntil.toISOString()}.`
      : `The code works once and expires at ${code.expiresAt.toISOString()}.`,
    "",
    "1. Pair (no Authorization header):",
    `   POST ${api}/pair/connect`,
    "   Content-Type: application/json",
    `   ${JSON.stringify(body)}`,
    "2. Keep data.sessionToken from the answer and send it on every other call:",
    "   Authorization: Bearer <sessionToken>",
    `3. Read GET ${api}/context first: brief, board, claims, threads and your next action.`,
    "4. Work loop: POST /api/begin a ticket (claims its files), log what you find, decide, change and test",
    "   with POST /api/ledger, and finish with POST /api/handoff. Never edit files another agent has claimed.",
    `5. Token expired? POST ${api}/session/refresh with {"token":"<old sessionToken>"}. A 401 with recovery`,
    "   REPAIR means: ask for a new pairing code.",
    "",
    `Reference: ${ctx.publicUrl}/docs  OpenAPI: ${ctx.publicUrl}/openapi.json  MCP: ${ctx.publicUrl}/mcp`,
    "",
  ];
  return { status: 200, text: lines.join("\n") };
}
