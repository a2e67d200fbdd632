import assert from "node:assert/strict";
import {
  activeTicketView,
  boardOf,
  complianceScoreOf,
  conflictRiskOf,
  contextUpdates,
  othersOnExpected,
  resumeOf,
  withPinned,
} from "@/domain/context/assemble.ts";
import type { OpenClaimRow } from "@/domain/context/claims.ts";
import { contextLimits } from "@/domain/context/limits.ts";
import type { ActiveTicketRow } from "@/domain/context/load.ts";
import type { ContextInput } from "@/domain/context/params.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { test } from "../helpers/mod.ts";

const now = new Date("2026-01-01T12:00:00Z");
const input = (over: Partial<ContextInput> = {}): ContextInput => ({
  compact: false,
  includeSystemLedger: false,
  includeAudit: false,
  include: [],
  ...over,
});
const claim = (over: Partial<OpenClaimRow> = {}): OpenClaimRow => ({
  claimId: "c1",
  file: "a.ts",
  agentId: "a2",
  agentName: "other",
  subAgentName: null,
  ticketId: "t9",
  claimedAt: "2026-01-01T11:30:00.000Z",
  expiresAt: "2026-01-01T13:00:00.000Z",
  isSelf: false,
  isStale: false,
  ...over,
});
const row = { id: "t1", number: 7, branch: "feat/x", criteria_acknowledged_at: null } as ActiveTicketRow;
const noEnv = { status: "unknown", notes: [], reportedAt: null };

test("CTX-006 contextLimits() refuses a ledger limit above the ceiling before a thread limit", () => {
  const settings = { contextLedgerCeiling: 5, contextThreadCeiling: 3 };
  assert.throws(
    () => contextLimits(settings, input({ ledgerLimit: 6, threadLimit: 9 })),
    (e) => e instanceof DomainError && e.code === "VALIDATION_ERROR" && e.message.includes("ledger_limit"),
  );
  assert.throws(
    () => contextLimits(settings, input({ threadLimit: 0 })),
    (e) => e instanceof DomainError && e.message.includes("thread_limit"),
  );
  const limits = contextLimits(settings, input({ compact: true, threadStatus: "bogus" }));
  assert.deepEqual(
    [limits.ledgerLimit, limits.shownLedger, limits.threadLimit, limits.threadStatus, limits.updatesLimit],
    [5, 5, 3, "open", 20],
  );
  assert.equal(contextLimits({}, input({ compact: true, ledgerLimit: 50 })).shownLedger, 5);
  assert.equal(contextLimits({}, input({ includeSystemLedger: true })).filter.source, "all");
});

const resumeWork = { action: "RESUME_WORK" as const, message: "continue" };

test("CTX-020 resumeOf() adds riskyFiles, staleClaims, envBlockers and nextAction only when relevant", () => {
  const bare = resumeOf({
    activeTicket: null,
    others: [],
    open: [],
    envHealth: noEnv,
    nextAction: resumeWork,
    now,
  });
  assert.deepEqual(bare, { activeTicket: null });
  const active = activeTicketView(row, "PRJ");
  const full = resumeOf({
    activeTicket: active,
    others: [claim({ subAgentName: "sub" })],
    open: [claim({ isSelf: true, isStale: true, file: "b.ts" })],
    envHealth: { status: "broken", notes: ["db down"], reportedAt: null },
    nextAction: resumeWork,
    now,
  });
  assert.deepEqual(Object.keys(full), [
    "activeTicket",
    "riskyFiles",
    "staleClaims",
    "envBlockers",
    "nextAction",
  ]);
  assert.deepEqual(full.riskyFiles, [{
    file: "a.ts",
    claimant: "other/sub",
    expiresAt: "2026-01-01T13:00:00.000Z",
  }]);
  assert.equal((full.staleClaims as Array<{ ageMinutes: number }>)[0]?.ageMinutes, 30);
  assert.equal(active?.ticketRef, "PRJ-7");
});

test("CTX-021 boardOf() derives the project phase and module count from the status counts", () => {
  const phase = (rows: Array<{ status: string; n: number }>, briefVersion = 1) =>
    boardOf(rows as never, {}, briefVersion).phase;
  assert.equal(phase([], 0), "setup");
  assert.equal(phase([]), "planning");
  assert.equal(phase([{ status: "done", n: 2 }, { status: "cancelled", n: 1 }]), "complete");
  assert.equal(phase([{ status: "done", n: 2 }, { status: "in_progress", n: 1 }]), "building");
  assert.equal(phase([{ status: "review", n: 1 }, { status: "ready", n: 1 }]), "reviewing");
  const board = boardOf([{ status: "done", n: 2 }, { status: "cancelled", n: 1 }] as never, {}, 1);
  assert.deepEqual([board.total, board.moduleCount], [3, 2]);
});

test("SUB-024 complianceScoreOf() grades only the checks that apply, on the identity's own claims", () => {
  const situation = { holdsWork: false, minutesSilent: null, thresholdMinutes: 15 };
  const base = {
    situation,
    session: undefined,
    activeTicket: null,
    hasTestedEntry: false,
    criteriaAckRequired: false,
  };
  assert.equal(complianceScoreOf({ ...base, ownExpiredClaims: 0 }), 100);
  assert.equal(complianceScoreOf({ ...base, ownExpiredClaims: 1 }), 0);
  const active = activeTicketView(row, "PRJ");
  // Four checks apply: no report, no tested entry, no expired claim, criteria not acknowledged.
  assert.equal(
    complianceScoreOf({
      ...base,
      session: { report: null },
      activeTicket: active,
      criteriaAckRequired: true,
      ownExpiredClaims: 0,
    }),
    25,
  );
});

test("contextUpdates() puts a brief change first only after a previous call, then every notification", () => {
  const note = {
    id: "n1",
    kind: "mention",
    content: "hi",
    thread_id: "th",
    message_id: "m",
    created_at: now,
  };
  const project = { brief_version: 3, brief_updated_at: null };
  const first = contextUpdates(
    project,
    { previous: { calls: 0, briefVersionSeen: 0, skillVersionSeen: null }, notes: [note] },
    20,
    now,
  );
  assert.deepEqual(first.map((u) => u.id), ["n1"]);
  const later = contextUpdates(
    project,
    { previous: { calls: 2, briefVersionSeen: 1, skillVersionSeen: null }, notes: [note] },
    20,
    now,
  );
  assert.deepEqual(later.map((u) => u.kind), ["brief.updated", "mention"]);
  assert.equal(later[0]?.createdAt, now.toISOString());
});

test("conflictRiskOf() and withPinned() merge without duplicates", () => {
  assert.deepEqual(conflictRiskOf([claim()], [{ conflictingFiles: ["a.ts", "b.ts"] }]), {
    level: "high",
    files: ["a.ts", "b.ts"],
  });
  assert.equal(conflictRiskOf([], [{ conflictingFiles: ["b.ts"] }]).level, "low");
  assert.equal(conflictRiskOf([], []).level, "none");
  assert.deepEqual(withPinned([{ id: "1" }, { id: "2" }], [{ id: "2" }, { id: "3" }]).map((e) => e.id), [
    "1",
    "2",
    "3",
  ]);
});

test("CTX-020 othersOnExpected() compares paths as claims do: SRC/A.ts held by another is on an expected src/a.ts", () => {
  const row = (file: string, isSelf: boolean): OpenClaimRow => ({
    claimId: crypto.randomUUID(),
    file,
    agentId: crypto.randomUUID(),
    agentName: "Ada",
    subAgentName: null,
    ticketId: null,
    claimedAt: "2026-01-01T00:00:00.000Z",
    expiresAt: "2026-01-01T00:30:00.000Z",
    isSelf,
    isStale: false,
  });
  const open = [row("SRC/A.ts", false), row("src/B.ts", true), row("src/c.ts", false)];
  assert.deepEqual(othersOnExpected(open, ["src/a.ts", "SRC/b.ts"]).map((c) => c.file), ["SRC/A.ts"]);
});
