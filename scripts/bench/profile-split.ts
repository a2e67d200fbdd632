/**
 * A V8 CPU profile of a stretch of in-process calls (scripts/bench/per-call.ts --cpu-prof), summed into
 * the parts of a call that issue 27.1 asks about: routing, validation, admission, query building, the
 * driver, serialization, logging, meta.context, the domain, the runtime. Self time per function,
 * attributed by the script the function lives in.
 */
import { Session } from "node:inspector/promises";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const PARTS: Array<[string, (url: string, fn: string) => boolean]> = [
  // The profiler's own session call stands on the stack while the thread waits for I/O.
  ["idle / waiting", (u, fn) => fn === "(idle)" || (fn === "post" && u.includes("inspector"))],
  ["garbage collection", (_u, fn) => fn === "(garbage collector)"],
  ["access log", (u) => u.includes("/src/http/access-log") || u.includes("/src/shared/log-safe")],
  ["meta.context", (u) => u.includes("/src/http/meta") || u.includes("/src/domain/core/silence")],
  ["admission (auth, limits)", (u) => /\/src\/(domain\/auth|domain\/limits|http\/(auth|rate|route))/.test(u)],
  ["validation (zod)", (u) => /zod/.test(u) || u.includes("/src/http/validation")],
  ["routing (hono)", (u) => /hono/.test(u)],
  ["query building (kysely)", (u) => /kysely/.test(u)],
  ["driver (postgres.js / pglite)", (u) => u.includes("postgres-js") || /pglite/.test(u)],
  ["serialization (JSON)", (u, fn) => u === "" && /^(stringify|parse|JSONStringify|JSONParse)$/.test(fn)],
  ["domain", (u) => u.includes("/src/domain/")],
  [
    "service http layer",
    (u) => u.includes("/src/http/") || u.includes("/src/routes/") || u.includes("/src/app"),
  ],
  ["db layer", (u) => u.includes("/src/db/")],
  ["Deno runtime (Request, Response, streams, crypto)", (u) => u.startsWith("ext:") || u.startsWith("node:")],
  ["bench harness", (u) => u.includes("/scripts/bench/") || u.includes("/tests/helpers/")],
];

function partOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  for (const [name, match] of PARTS) if (match(url, functionName)) return name;
  if (functionName === "(program)") return "V8 / native (program)";
  return url === "" ? `native: ${functionName || "(anonymous)"}` : "other";
}

/** Sums self time per part, in ms, largest first. */
export function split(profile: Profile): Array<[string, number]> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node) return;
    const part = partOf(node);
    totals.set(part, (totals.get(part) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...totals.entries()].sort((a, b) => b[1] - a[1]);
}

/** The functions with the most self time (ms), `name (script:line)`, largest first. */
export function topFunctions(profile: Profile, n = 12): Array<[string, number]> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node || partOf(node) === "idle / waiting") return;
    const { functionName, url } = node.callFrame;
    const key = `${functionName || "(anonymous)"} ${
      url.replace(/^.*\/(node_modules|src|vendor|npm)\//, "$1/")
    }`;
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
}

/** Starts the profiler; the returned function stops it and returns the profile. */
export async function startProfile(intervalMicros = 100): Promise<() => Promise<Profile>> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: intervalMicros });
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop") as unknown as { profile: Profile };
    session.disconnect();
    return profile;
  };
}
