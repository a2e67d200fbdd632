import type { Holder } from "@/domain/core/claim-holders.ts";
import { DomainError, recovery } from "@/domain/core/errors.ts";
import { identityName } from "@/domain/core/actor.ts";
import { entriesOverlap } from "@/shared/file-path.ts";
import { identityKey, type QueuedRequest, requestName } from "./queue.ts";

/** One identity of a wait-for cycle as `409 DEADLOCK` reports it. */
export interface CycleEntry {
  claimantName: string;
  holds: string[];
  waitsFor: string[];
}

/** The waiter that asks to wait (not yet a request). */
export interface NewWaiter {
  agentId: string;
  agentName: string;
  subAgentName: string | null;
  files: string[];
}

interface Edge {
  to: string;
  files: string[];
}

/**
 * The wait-for graph of the project: an identity waits for the holder of each file of its waiting
 * requests and for every earlier waiter of that file (they are granted it first); entries compare by the
 * overlap rule (a directory holder blocks a file under it). Identities are
 * agents and sub-agents, each its own. Answers identity key -> edges, plus names.
 */
function waitGraph(waiting: QueuedRequest[], holders: Holder[]) {
  const edges = new Map<string, Edge[]>();
  const names = new Map<string, string>();
  for (const h of holders) names.set(identityKey(h), identityName(h.agentName, h.subAgentName));
  const add = (from: string, to: string, file: string) => {
    if (from === to) return;
    const list = edges.get(from) ?? [];
    const edge = list.find((e) => e.to === to);
    if (edge) edge.files.push(file);
    else list.push({ to, files: [file] });
    edges.set(from, list);
  };
  waiting.forEach((r, i) => {
    const me = identityKey(r);
    names.set(me, requestName(r));
    for (const file of r.files) {
      for (const h of holders.filter((h) => entriesOverlap(h.file, file))) add(me, identityKey(h), file);
      for (const earlier of waiting.slice(0, i)) {
        if (earlier.files.some((f) => entriesOverlap(f, file))) add(me, identityKey(earlier), file);
      }
    }
  });
  return { edges, names };
}

/**
 * Refuses a wait that would close a wait-for cycle (any length) with `409 DEADLOCK`: `details.cycle[]`
 * from the requester round the cycle back to it (each identity's held files in the cycle and the files
 * it waits for; the requester's `waitsFor` are the refused request's files) and recovery
 * `RELEASE_HELD_FILES`. Call it under the project's claim lock, before the request is written.
 */
export function refuseDeadlock(waiter: NewWaiter, waiting: QueuedRequest[], holders: Holder[]) {
  const { edges, names } = waitGraph(waiting, holders);
  const me = identityKey(waiter);
  names.set(me, identityName(waiter.agentName, waiter.subAgentName));
  const first: Edge[] = [];
  for (const file of waiter.files) {
    const targets = new Set<string>();
    for (const h of holders.filter((h) => entriesOverlap(h.file, file))) targets.add(identityKey(h));
    for (const r of waiting) {
      if (r.files.some((f) => entriesOverlap(f, file))) targets.add(identityKey(r));
    }
    targets.delete(me);
    for (const to of targets) first.push({ to, files: [file] });
  }
  const path = findPath(first, edges, me);
  if (!path) return;
  const cycleFiles = path.flatMap((e) => e.files);
  const nodes = [me, ...path.slice(0, -1).map((e) => e.to)];
  const cycle: CycleEntry[] = nodes.map((node, i) => ({
    claimantName: names.get(node) ?? node,
    holds: holders.filter((h) => identityKey(h) === node && cycleFiles.some((f) => entriesOverlap(f, h.file)))
      .map((h) => h.file),
    waitsFor: i === 0 ? waiter.files : [...new Set(path[i]!.files)],
  }));
  throw deadlockError(waiter, cycle);
}

/** Depth-first search from the requester's first edges back to it; answers the edges of the cycle. */
function findPath(first: Edge[], edges: Map<string, Edge[]>, me: string): Edge[] | null {
  const seen = new Set<string>();
  const walk = (edge: Edge, trail: Edge[]): Edge[] | null => {
    const next = [...trail, edge];
    if (edge.to === me) return next;
    if (seen.has(edge.to)) return null;
    seen.add(edge.to);
    for (const e of edges.get(edge.to) ?? []) {
      const found = walk(e, next);
      if (found) return found;
    }
    return null;
  };
  for (const edge of first) {
    const found = walk(edge, []);
    if (found) return found;
  }
  return null;
}

function deadlockError(waiter: NewWaiter, cycle: CycleEntry[]): DomainError {
  const held = cycle[0]!.holds;
  const names = cycle.map((c) => c.claimantName).join(" -> ");
  return new DomainError(
    "conflict",
    "DEADLOCK",
    `Cannot wait for ${waiter.files.join(", ")}: the wait would close a cycle (${names} -> ${
      cycle[0]!.claimantName
    }). Nothing was claimed or queued.`,
    {
      cycle,
      recovery: recovery(
        "RELEASE_HELD_FILES",
        "POST /release",
        "Release the files you hold that others wait for, then claim again with waitSeconds",
        held.length > 0 ? { files: held } : { all: true },
      ),
    },
  );
}
