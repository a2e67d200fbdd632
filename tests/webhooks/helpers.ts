// deno-lint-ignore-file no-explicit-any
import { callOn, type TestEnv } from "../helpers/mod.ts";
import { ADMIN_TOKEN, startTestEnv } from "../helpers/env.ts";
import { deliverDueWebhooks, type DeliveryDeps } from "@/domain/webhooks/deliver.ts";

/** A service whose webhooks may go to loopback receivers (SVC_WEBHOOK_ALLOW_LOOPBACK=1). */
let shared: Promise<TestEnv> | null = null;
export function hookEnv(): Promise<TestEnv> {
  shared ??= startTestEnv({ webhookAllowLoopback: true });
  return shared;
}

export async function adminOn(e: TestEnv, method: string, path: string, body?: unknown): Promise<any> {
  const res = await callOn(e, method, `/admin${path}`, {
    token: ADMIN_TOKEN,
    ...(method === "GET" ? {} : { body: body ?? {} }),
  });
  if (res.status >= 300) throw new Error(`admin ${method} ${path} failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export interface Received {
  headers: Headers;
  body: string;
  json: any;
}

/** A receiver on 127.0.0.1 (port 0); `answer` decides each status (default 204). */
export function receiver(answer: (n: number, r: Received) => number | Promise<number> = () => 204) {
  const got: Received[] = [];
  let n = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    const r = { headers: req.headers, body, json: JSON.parse(body) };
    const status = await answer(++n, r);
    if (status < 300) got.push(r);
    return new Response(null, { status });
  });
  const url = `http://127.0.0.1:${server.addr.port}/hook`;
  return { url, got, calls: () => n, close: () => server.shutdown() };
}

export function deps(e: TestEnv): DeliveryDeps {
  return { db: e.db, clock: e.clock, destinations: { allowLoopback: true } };
}

/** Runs delivery rounds until `done()` holds (or about 5 s passed). */
export async function deliverUntil(e: TestEnv, done: () => boolean, rounds = 100): Promise<void> {
  for (let i = 0; i < rounds && !done(); i++) {
    await deliverDueWebhooks(deps(e));
    if (!done()) await new Promise((r) => setTimeout(r, 50));
  }
}

/** A project with a generator agent on `e`. */
export async function projectWithAgent(e: TestEnv, prefix: string) {
  const org = await adminOn(e, "POST", "/orgs", { name: "Org", plan: "team" });
  const project = await adminOn(e, "POST", "/projects", {
    orgId: org.id,
    name: prefix,
    ticketPrefix: prefix,
  });
  const key = await adminOn(e, "POST", `/projects/${project.id}/api-keys`, {
    agentName: `agent-${prefix.toLowerCase()}`,
    role: "generator",
  });
  return { orgId: org.id as string, projectId: project.id as string, token: key.key as string };
}

/** Writes one ledger entry (one `ledger.appended` event). */
export async function ledger(e: TestEnv, token: string, content: string): Promise<void> {
  const res = await callOn(e, "POST", "/ledger", { token, body: { type: "PROGRESS", content } });
  if (res.status >= 300) throw new Error(`ledger failed: ${res.status} ${res.text}`);
}

/** Waits until no delivery is being attempted (a receiver answers before the outcome is written). */
export async function settled(e: TestEnv): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const leased = await e.db.selectFrom("webhook_deliveries").select("id").where(
      "lease_until",
      "is not",
      null,
    )
      .execute();
    if (leased.length === 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("deliveries did not settle");
}
