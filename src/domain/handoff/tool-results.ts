import type { Clock } from "@/clock.ts";
import type { Trx } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";
import { writeSystemEntry } from "@/domain/core/system-entry.ts";

export const TOOL_RESULTS_JOB = "handoff.tool_results";
const MAX_CONTENT = 2000;

const TEST_WORDS =
  /\b(tests?|specs?|pytest|jest|vitest|mocha|deno test|cargo test|go test|npm test|rspec|phpunit|passed|failed|failing|assert\w*|coverage|lint|typecheck|type check|deno check|tsc)\b/i;

export interface ClassifiedResult {
  type: "PROGRESS" | "TESTED";
  content: string;
}

function str(value: unknown): string | null {
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

function firstOf(obj: Record<string, unknown>, keys: string[]): string | null {
  for (const k of keys) {
    const v = str(obj[k]);
    if (v !== null) return v;
  }
  return null;
}

/**
 * Classifies one raw tool result. Strings are taken as they are; objects are read through common
 * keys (`tool`/`name`/`command` for what ran, `output`/`result`/`content`/`text`/`summary` for what it
 * said, `exitCode`/`passed`/`success`/`status` for the outcome). TESTED when the item declares it
 * (`type: "TESTED"` or `kind: "test"`), carries a pass/fail outcome next to a test-like command, or its
 * text looks like a test run; PROGRESS otherwise. Null for empty items.
 */
export function classifyToolResult(item: unknown): ClassifiedResult | null {
  if (item === null || item === undefined) return null;
  if (typeof item !== "object") {
    const text = str(item);
    if (text === null) return null;
    return { type: TEST_WORDS.test(text) ? "TESTED" : "PROGRESS", content: text.slice(0, MAX_CONTENT) };
  }
  if (Array.isArray(item)) return classifyToolResult(JSON.stringify(item));
  const obj = item as Record<string, unknown>;
  const what = firstOf(obj, ["command", "cmd", "tool", "name"]);
  const said = firstOf(obj, ["summary", "output", "result", "content", "text", "stdout", "message"]);
  const exit = obj.exitCode ?? obj.exit_code;
  const outcome = typeof obj.passed === "boolean"
    ? (obj.passed ? "passed" : "failed")
    : typeof obj.success === "boolean"
    ? (obj.success ? "passed" : "failed")
    : typeof exit === "number"
    ? (exit === 0 ? "passed" : `failed (exit ${exit})`)
    : firstOf(obj, ["status"]);
  const parts = [what, said, outcome ? `outcome: ${outcome}` : null].filter((p): p is string => p !== null);
  const content = (parts.length > 0 ? parts.join(" | ") : JSON.stringify(obj)).slice(0, MAX_CONTENT);
  if (content === "{}") return null;
  const declared = (str(obj.type) ?? str(obj.kind) ?? "").toLowerCase();
  const tested = declared === "tested" || declared === "test" ||
    TEST_WORDS.test(what ?? "") || (declared === "" && TEST_WORDS.test(content));
  return { type: tested ? "TESTED" : "PROGRESS", content };
}

export interface ToolResultsPayload {
  projectId: string;
  agentId: string;
  subAgentName: string | null;
  sessionId: string;
  ticketId: string | null;
  toolResults: unknown[];
}

/** The payload stored in `pending_jobs` by the handoff transaction. */
export function toolResultsJob(payload: ToolResultsPayload, now: Date) {
  return {
    id: crypto.randomUUID(),
    kind: TOOL_RESULTS_JOB,
    payload: toJson(payload),
    created_at: now,
  };
}

/**
 * Writes the classified tool results as PROGRESS and TESTED entries of the handed-off session,
 * skipping any whose type and content match an entry already in the session (or an earlier item).
 */
export async function runToolResultsJob(trx: Trx, clock: Clock, raw: Record<string, unknown>): Promise<void> {
  const payload = raw as unknown as ToolResultsPayload;
  const items = Array.isArray(payload.toolResults) ? payload.toolResults : [];
  const existing = await trx.selectFrom("ledger_entries").select(["type", "content"])
    .where("project_id", "=", payload.projectId).where("session_id", "=", payload.sessionId)
    .where("type", "in", ["PROGRESS", "TESTED"]).execute();
  const seen = new Set(existing.map((e) => `${e.type}\u0000${e.content.trim()}`));
  const now = clock.now();
  for (const item of items) {
    const classified = classifyToolResult(item);
    if (!classified) continue;
    const key = `${classified.type}\u0000${classified.content.trim()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    await writeSystemEntry(trx, {
      source: "agent",
      projectId: payload.projectId,
      type: classified.type,
      content: classified.content,
      agentId: payload.agentId,
      subAgentName: payload.subAgentName,
      sessionId: payload.sessionId,
      ticketId: payload.ticketId,
      payload: { source: "toolResults" },
      now,
    });
  }
}
