/**
 * The contended-claims row of `deno task bench` (issue 24): agents wait on a few hot files through the
 * claim wait queue (`POST /claim` with `waitSeconds`), each holding its file briefly and releasing it,
 * so every release grants the next waiter inside its own transaction.
 *
 * Reported: grants per second (req/s column), the time from sending a release to its answer (by then the
 * next waiter's grant is committed: it is made in the release's transaction) as p50/p95/p99, and the
 * double grants found in the event feed afterwards (a file acquired by one agent while another holds it,
 * or one request granted twice): must be 0.
 */
import { admin, newProject, request } from "../chaos/lib.ts";
import type { Row } from "./report.ts";

const ALL_HOT_FILES = ["src/hot/a.ts", "src/hot/b.ts", "src/hot/c.ts"];
/** The row runs at least this long: a grant needs a claim, a wait and a release. */
const MIN_DURATION_MS = 3000;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the workload against the service at `base` for `durationMs` with `agents` agents. */
export async function contendedClaims(base: string, agents: number, durationMs: number): Promise<Row> {
  const letters = Array.from({ length: 4 }, () => String.fromCharCode(65 + Math.floor(Math.random() * 26)));
  const { projectId } = await newProject(base, `CQ${letters.join("")}`);
  const keys: string[] = [];
  for (let i = 0; i < agents; i++) {
    const k = await admin(base, "POST", `/projects/${projectId}/api-keys`, {
      name: `cq-${i}`,
      agentName: `cq-agent-${i}`,
      role: "generator",
    });
    keys.push(k.key);
  }
  const releases: number[] = [];
  const errors: Record<string, number> = {};
  let requests = 0;
  let grants = 0;
  // Several waiters per hot file: one file for a few agents, three from 8 agents on.
  const HOT_FILES = ALL_HOT_FILES.slice(0, agents >= 8 ? 3 : 1);
  const started = performance.now();
  const until = started + Math.max(durationMs, MIN_DURATION_MS);
  const count = (status: number) => {
    if (status >= 300) errors[`status ${status}`] = (errors[`status ${status}`] ?? 0) + 1;
  };
  await Promise.all(keys.map(async (token, i) => {
    const file = HOT_FILES[i % HOT_FILES.length]!;
    while (performance.now() < until) {
      const c = await request(base, "POST", "/api/claim", {
        token,
        body: { files: [file], waitSeconds: 60 },
      });
      requests++;
      count(c.status);
      if (c.status === 202) {
        // deno-lint-ignore no-explicit-any
        const id = (c.body as any).data.request.id as string;
        let granted = false;
        while (!granted && performance.now() < until + 5000) {
          await sleep(10);
          const r = await request(base, "GET", `/api/claim/requests/${id}`, { token });
          requests++;
          // deno-lint-ignore no-explicit-any
          granted = r.status === 200 && (r.body as any).data.status === "granted";
        }
        if (!granted) break;
        grants++;
      } else if (c.status !== 200) {
        await sleep(20);
        continue;
      }
      await sleep(2);
      const r = await request(base, "POST", "/api/release", { token, body: { files: [file] } });
      requests++;
      count(r.status);
      releases.push(r.ms);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const doubles = await doubleGrants(base, keys[0]!);
  const sorted = [...releases].sort((a, b) => a - b);
  const r2 = (v: number) => Math.round(v * 100) / 100;
  return {
    requests,
    ok: requests - Object.values(errors).reduce((a, b) => a + b, 0),
    seconds,
    rps: Math.round((grants / seconds) * 10) / 10,
    p50: r2(percentile(sorted, 0.5)),
    p95: r2(percentile(sorted, 0.95)),
    p99: r2(percentile(sorted, 0.99)),
    max: r2(sorted.at(-1) ?? NaN),
    errors: doubles > 0 ? { ...errors, [`double grants`]: doubles } : errors,
    name: `contended claims: ${agents} agents wait on ${HOT_FILES.length} hot file(s)`,
    group: "write",
    connections: agents,
    note:
      `req/s = grants/s (${grants} grants); p50/p95/p99 = release -> next waiter granted (the release's ` +
      `answer; the grant commits with it); double grants ${doubles}`,
  };
}

/**
 * Walks the project's event feed in order: a `claim.acquired` of a file another agent holds, or a
 * request granted twice, is a double grant.
 */
async function doubleGrants(base: string, token: string): Promise<number> {
  const holder = new Map<string, string>();
  const granted = new Set<string>();
  let doubles = 0;
  let cursor = "";
  for (;;) {
    const res = await request(
      base,
      "GET",
      `/api/events?kinds=claim.&limit=500${cursor ? `&since=${cursor}` : ""}`,
      {
        token,
      },
    );
    // deno-lint-ignore no-explicit-any
    const data = (res.body as any)?.data;
    if (!data) throw new Error(`events: ${res.status} ${res.text.slice(0, 200)}`);
    for (const e of data.events as Array<{ kind: string; agentId: string; data: Record<string, unknown> }>) {
      const files = (e.data.files ?? []) as string[];
      if (e.kind === "claim.acquired") {
        for (const f of files) {
          const h = holder.get(f);
          if (h && h !== e.agentId) doubles++;
          holder.set(f, e.agentId);
        }
      } else if (e.kind === "claim.released") {
        for (const f of files) if (holder.get(f) === e.agentId) holder.delete(f);
      } else if (e.kind === "claim.granted") {
        const id = e.data.requestId as string;
        if (granted.has(id)) doubles++;
        granted.add(id);
      }
    }
    cursor = data.nextCursor;
    if (!data.hasMore) break;
  }
  return doubles;
}
