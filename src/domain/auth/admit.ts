import { type RawBuilder, sql } from "kysely";
import type { AgentRole, Plan, TokenKind } from "@/db/tables/foundation.ts";
import type { Actor } from "@/domain/core/actor.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import { hashToken } from "@/domain/core/crypto.ts";
import { type CallerSituation, situationColumns, situationOf } from "@/domain/core/silence.ts";
import type { Prefetch } from "@/domain/core/prefetch.ts";
import { freshnessColumns } from "@/domain/ledger/stale.ts";
import { type ChargedCounts, PLAN_HOURLY_UNITS, RATE_WINDOWS, windowOf } from "@/domain/limits/rate-limit.ts";
import { rejected, sessionBurstRefusal } from "./authenticate.ts";
import { compileTemplate, runTemplate, Slot, type Template } from "@/db/compiled.ts";
import {
  API_KEY_PREFIX,
  SESSION_BURST_LIMIT,
  SESSION_BURST_WINDOW_MS,
  SESSION_IDLE_MS,
  SESSION_TOKEN_PREFIX,
} from "./token-policy.ts";

export interface AdmitInput {
  bearer: string | undefined;
  subAgentHeader?: string | undefined;
  /** The route's scope and roles: a call they refuse is not charged. */
  scope?: string | undefined;
  roles?: AgentRole[] | undefined;
  cost: number;
  /** Read what the LEDGER_STALE gate needs (mutating routes that are not exempt). */
  freshness: boolean;
  /** Columns the route's handler reads anyway, read in this statement instead (see `Prefetch`). */
  prefetch?: Prefetch | undefined;
}

/** What the admission statement found: the caller, this call's counts, its situation. */
export interface Admission {
  actor: Actor;
  /** Null when the call was not charged (scope or role refused: the caller checks those first). */
  counts: ChargedCounts | null;
  /** The columns of `freshnessColumns` (prefix `f_`), when asked for. */
  freshness: Record<string, unknown> | null;
  situation: CallerSituation;
  /** The instant the call was admitted at (rate windows and silence are measured from it). */
  now: Date;
  /** The admission row, holding the prefetch's columns, when the route asked for some. */
  prefetched: Record<string, unknown> | null;
}

interface AdmitRow {
  valid: boolean;
  fast: boolean;
  token_id: string;
  kind: TokenKind;
  session_id: string | null;
  scopes: string[] | string;
  created_at: Date;
  expires_at: Date | null;
  agent_id: string;
  agent_name: string;
  platform: string | null;
  role: AgentRole;
  project_id: string;
  org_id: string;
  plan: Plan;
  session_burst: number | null;
  agent_burst: number | null;
  project_burst: number | null;
  agent_units: number | null;
  project_units: number | null;
  [column: string]: unknown;
}

const OPEN_SESSION = sql`('active', 'awaiting_input', 'error')`;

/**
 * Authentication, the session burst, the idle refresh, the rate charge, the caller's situation (for
 * `meta.context`) and the LEDGER_STALE inputs in ONE statement, so one round trip admits a call.
 * Exactly the rules of `authenticate` + `chargeUnits` + `assertLedgerFresh`, in the same order: a token
 * that does not work writes nothing; a session token counts its burst window and restarts its idle
 * window; a call over the session burst, or refused by the route's scope or role, is not charged.
 * Every count lives in the database (no cache), so a revoked token stops at once and the limits hold
 * across instances. Session tokens and API keys without `X-Svc-SubAgent` take this path; sub-agent
 * tokens, the header and OAuth tokens answer null (the caller falls back to the general path).
 */
export async function admit(ctx: ServiceCtx, input: AdmitInput): Promise<Admission | null> {
  const token = input.bearer?.trim();
  if (!token || input.subAgentHeader !== undefined) return null;
  const kind: TokenKind | null = token.startsWith(SESSION_TOKEN_PREFIX)
    ? "session"
    : token.startsWith(API_KEY_PREFIX)
    ? "api_key"
    : null;
  if (!kind) return null;
  const now = ctx.clock.now();
  const row = await admissionStatement(ctx, hashToken(token), kind, now, input);
  if (!row || !row.valid) {
    // Not this path's kind of token (a sub-agent name on it): the general path decides, nothing charged.
    if (row && !row.fast) return null;
    throw rejected();
  }
  if (row.session_burst !== null && Number(row.session_burst) > SESSION_BURST_LIMIT) {
    throw sessionBurstRefusal();
  }
  const actor: Actor = {
    kind,
    tokenKind: row.kind,
    tokenId: row.token_id,
    agentId: row.agent_id,
    agentName: row.agent_name,
    platform: row.platform,
    role: row.role,
    projectId: row.project_id,
    orgId: row.org_id,
    plan: row.plan,
    scopes: typeof row.scopes === "string" ? JSON.parse(row.scopes) : row.scopes,
    sessionId: row.session_id,
    subAgentName: null,
    tokenCreatedAt: new Date(row.created_at),
    tokenExpiresAt: row.expires_at ? new Date(row.expires_at) : null,
  };
  const minute = windowOf(now, RATE_WINDOWS.MINUTE).end;
  const hour = windowOf(now, RATE_WINDOWS.HOUR).end;
  const counted = (n: unknown, resetAt: Date) =>
    n === null || n === undefined ? undefined : { count: Number(n), resetAt };
  const agentBurst = counted(row.agent_burst, minute);
  const projectBurst = counted(row.project_burst, minute);
  return {
    actor,
    counts: agentBurst && projectBurst
      ? {
        agentBurst,
        projectBurst,
        agent: counted(row.agent_units, hour),
        project: counted(row.project_units, hour),
      }
      : null,
    freshness: input.freshness ? row : null,
    situation: situationOf(row, now, "s_"),
    now,
    prefetched: input.prefetch ? row : null,
  };
}

/** The route's scope and role conditions, in SQL over the token row `adm` (as `hasScope` and `roles`). */
function policyOk(input: AdmitInput): RawBuilder<unknown> {
  const scope = input.scope
    ? sql`(jsonb_array_length(adm.scopes) = 0 OR adm.scopes @> jsonb_build_array(${input.scope}::text))`
    : sql`true`;
  const role = input.roles ? sql`adm.role IN (${sql.join(input.roles)})` : sql`true`;
  return sql`${scope} AND ${role}`;
}

/** The admission statement's compiled text per route shape (scope, roles, freshness): built once. */
const admissionTemplates = new Map<string, Template>();

async function admissionStatement(
  ctx: ServiceCtx,
  hash: string,
  kind: TokenKind,
  now: Date,
  input: AdmitInput,
): Promise<AdmitRow | undefined> {
  const shape = JSON.stringify([
    input.scope ?? null,
    input.roles ?? null,
    input.freshness,
    input.prefetch?.name ?? null,
  ]);
  let template = admissionTemplates.get(shape);
  if (!template) {
    template = compileTemplate(ctx.db, admissionQuery(now, input), now);
    admissionTemplates.set(shape, template);
  }
  const minute = windowOf(now, RATE_WINDOWS.MINUTE);
  const hour = windowOf(now, RATE_WINDOWS.HOUR);
  const burst = windowOf(now, SESSION_BURST_WINDOW_MS);
  const rows = await runTemplate<AdmitRow>(ctx.db, template, now, {
    kind,
    hash,
    idleUntil: new Date(now.getTime() + SESSION_IDLE_MS),
    burstStart: burst.start,
    burstEnd: burst.end,
    minuteStart: minute.start,
    minuteEnd: minute.end,
    hourStart: hour.start,
    hourEnd: hour.end,
    cost: input.cost,
  });
  return rows[0];
}

/**
 * The statement, with a `Slot` for each per-call value (the window edges are not a fixed distance from
 * `now`); the dates built from `now` inside the situation and freshness columns move with it.
 */
export function admissionQuery(now: Date, input: AdmitInput): RawBuilder<AdmitRow> {
  const limited = (Object.keys(PLAN_HOURLY_UNITS) as Plan[]).filter((p) => PLAN_HOURLY_UNITS[p] !== null);
  const hourly = limited.length ? sql`adm.plan IN (${sql.join(limited)})` : sql`false`;
  const agent = sql.ref("adm.agent_id");
  const project = sql.ref("adm.project_id");
  const [kind, hash, idleUntil, cost] = ["kind", "hash", "idleUntil", "cost"].map((n) => new Slot(n));
  const burst = { start: new Slot("burstStart"), end: new Slot("burstEnd") };
  const minute = { start: new Slot("minuteStart"), end: new Slot("minuteEnd") };
  const hour = { start: new Slot("hourStart"), end: new Slot("hourEnd") };
  return sql<AdmitRow>`
    WITH adm AS (
      SELECT tk.id AS token_id, tk.kind, tk.session_id, tk.scopes, tk.created_at, tk.expires_at,
        tk.idle_expires_at, a.id AS agent_id, a.name AS agent_name, a.platform, a.role,
        p.id AS project_id, o.id AS org_id, o.plan,
        (tk.sub_agent_name IS NULL) AS fast,
        (tk.kind = ${kind} AND tk.sub_agent_name IS NULL AND tk.revoked_at IS NULL
          AND (tk.expires_at IS NULL OR tk.expires_at > ${now})
          AND (tk.idle_expires_at IS NULL OR tk.idle_expires_at > ${now})
          AND a.status <> 'revoked' AND p.status = 'active' AND o.status = 'active'
          AND (tk.session_id IS NULL OR s.status IN ${OPEN_SESSION})) AS valid
      FROM tokens tk
      JOIN agents a ON a.id = tk.agent_id
      JOIN projects p ON p.id = tk.project_id
      JOIN organizations o ON o.id = p.org_id
      LEFT JOIN sessions s ON s.id = tk.session_id
      WHERE tk.token_hash = ${hash}
    ),
    touch AS (
      UPDATE tokens SET last_used_at = ${now}, idle_expires_at = LEAST(${idleUntil}::timestamptz, tokens.expires_at)
      FROM adm WHERE adm.valid AND tokens.id = adm.token_id AND adm.idle_expires_at IS NOT NULL
      RETURNING tokens.id
    ),
    sess AS (
      INSERT INTO rate_counters (key, window_start, count, expires_at)
      SELECT 'sess:' || adm.token_id, ${burst.start}::timestamptz, 1, ${burst.end}::timestamptz FROM adm WHERE adm.valid AND adm.kind = 'session'
      ON CONFLICT (key, window_start) DO UPDATE SET count = rate_counters.count + 1
      RETURNING count
    ),
    charge AS (
      INSERT INTO rate_counters (key, window_start, count, expires_at)
      SELECT w.key, w.window_start, ${cost}::int, w.expires_at
      FROM adm CROSS JOIN LATERAL (VALUES
        ('burst:agent:' || adm.agent_id, ${minute.start}::timestamptz, ${minute.end}::timestamptz, true),
        ('burst:project:' || adm.project_id, ${minute.start}::timestamptz, ${minute.end}::timestamptz, true),
        ('units:agent:' || adm.agent_id, ${hour.start}::timestamptz, ${hour.end}::timestamptz, ${hourly}),
        ('units:project:' || adm.project_id, ${hour.start}::timestamptz, ${hour.end}::timestamptz, ${hourly})
      ) AS w(key, window_start, expires_at, wanted)
      WHERE adm.valid AND w.wanted AND ${policyOk(input)}
        AND NOT EXISTS (SELECT 1 FROM sess WHERE sess.count > ${SESSION_BURST_LIMIT})
      ON CONFLICT (key, window_start) DO UPDATE SET count = rate_counters.count + excluded.count
      RETURNING key, count
    )
    SELECT adm.*,
      (SELECT count FROM sess) AS session_burst,
      (SELECT count FROM charge WHERE key = 'burst:agent:' || adm.agent_id) AS agent_burst,
      (SELECT count FROM charge WHERE key = 'burst:project:' || adm.project_id) AS project_burst,
      (SELECT count FROM charge WHERE key = 'units:agent:' || adm.agent_id) AS agent_units,
      (SELECT count FROM charge WHERE key = 'units:project:' || adm.project_id) AS project_units,
      ${situationColumns(agent, project, null, now, "s_")}
      ${input.freshness ? sql`, ${freshnessColumns(agent, project, null, now, "f_")}` : sql``}
      ${input.prefetch ? sql`, ${input.prefetch.columns(sql.ref("adm.token_id"))}` : sql``}
    FROM adm`;
}
