import { sql } from "kysely";
import { identityName } from "@/domain/core/actor.ts";
import type { DbOrTrx } from "@/db/database.ts";
import { DEFAULT_LEDGER_STALE_MINUTES } from "@/domain/core/silence.ts";

/** The agent-facing skill document: how to work with the service. Kept short; the full reference is /docs. */
export const SKILL_DOCUMENT = `# Working with the coordination service
1. GET /api/context first: brief, claims, threads, your active ticket and what to do next.
2. POST /api/begin with a ticket and its files: claims the files and starts the ticket.
3. Log as you go: POST /api/ledger (PROGRESS, DECISION, TESTED...). Silence over ${DEFAULT_LEDGER_STALE_MINUTES} minutes while holding
   work blocks other writes with 429 LEDGER_STALE.
4. POST /api/handoff when done: releases your claims and moves the ticket to review.
Never edit a file another agent has claimed: check with GET /api/claim/check.
A file is taken (409)? Do not poll: POST /api/claim again with "waitSeconds" (1-3600). You get 202 and a
   request id, join the file's queue, and the service grants you the claim itself when it frees up (event
   claim.granted, claims.granted in GET /api/context); meanwhile work on something else. A 409 DEADLOCK
   means you hold what others wait for: release those files (POST /api/release), then wait.

Proof of claims: each claimed file carries a \`fence\` (POST /api/claim, POST /api/begin); send it with writes
that name the file (POST /api/ledger \`fence\` beside \`fileRef\`, POST /api/handoff \`changedFiles: [{ file, fence }]\`):
409 FENCE_STALE means your claim ended, so claim again (RECLAIM_FILES). POST /api/claim/verify \`{ files }\` says
whether you hold them now. \`deno task cli hooks install --pre-commit --pre-push --claude-code\` gates commits,
pushes and edits on your claims (SVC_URL, SVC_TOKEN). Name \`changedFiles\` at handoff: the reviewer sees the
coverage.`;

interface PairingContextInput {
  projectId: string;
  agentId: string;
  compact: boolean;
  briefVersion: number;
  brief: Record<string, unknown>;
}

/**
 * Context returned by pairing. Compact: brief, claims `{ count, ids }`, threads `{ count, ids }`.
 * Full adds the skill document, recent ledger, conflict zones (files others hold) and cursors.
 */
export async function pairingContext(db: DbOrTrx, input: PairingContextInput) {
  const claims = await db.selectFrom("claims").select(["id"]).where("project_id", "=", input.projectId)
    .where("released_at", "is", null).orderBy("claimed_at", "desc").limit(100).execute();
  const threads = await db.selectFrom("threads").select(["id"]).where("project_id", "=", input.projectId)
    .where("status", "=", "open").orderBy("created_at", "desc").limit(100).execute();
  const hasBrief = input.briefVersion > 0;
  const compact = {
    brief: hasBrief ? { version: input.briefVersion, content: JSON.stringify(input.brief) } : null,
    claims: { count: claims.length, ids: claims.map((c) => c.id) },
    threads: { count: threads.length, ids: threads.map((t) => t.id) },
  };
  if (input.compact) return compact;
  const ledgerRows = await db.selectFrom("ledger_entries")
    .select([
      "id",
      "type",
      "content",
      "agent_id as agentId",
      "ticket_id as ticketId",
      "created_at as createdAt",
    ])
    .where("project_id", "=", input.projectId).orderBy("seq", "desc").limit(10).execute();
  const ledger = ledgerRows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
  const zones = await db.selectFrom("claim_files as f").innerJoin("claims as c", "c.id", "f.claim_id")
    .innerJoin("agents as a", "a.id", "c.agent_id")
    .select([
      "f.file",
      "a.name as agentName",
      "c.sub_agent_name as subAgentName",
      "c.expires_at as expiresAt",
    ])
    .where("f.project_id", "=", input.projectId).where("f.released_at", "is", null)
    .where("c.agent_id", "!=", input.agentId).limit(200).execute();
  const cursor = await db.selectFrom("event_cursors").select(sql<string>`seq::text`.as("seq"))
    .where("project_id", "=", input.projectId).executeTakeFirst();
  return {
    ...compact,
    skill: SKILL_DOCUMENT,
    ledger,
    conflictZones: zones.map((z) => ({
      file: z.file,
      claimant: identityName(z.agentName, z.subAgentName),
      expiresAt: z.expiresAt.toISOString(),
    })),
    cursors: { events: cursor?.seq ?? "0", ledger: ledger[0]?.createdAt ?? null },
  };
}
