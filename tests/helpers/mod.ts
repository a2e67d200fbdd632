// deno-lint-ignore-file no-explicit-any
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from "./env.ts";

export { ADMIN_TOKEN, type TestEnv };

/**
 * The test file that registers tests now (set by shard.ts while it imports a file), and the one whose
 * test runs now: several files share an isolate in a shard, and each keeps its own service.
 */
let registeringFile = "";
let runningFile = "";

/** Called by shard.ts around each file it imports. */
export function setRegisteringFile(file: string): void {
  registeringFile = file;
}

let shared: { file: string; env: Promise<TestEnv> } | null = null;

/**
 * The test file's service, started on first use and shared by its tests (each test makes its own
 * project). The first test of the next file in the same shard gets a fresh one; the previous closes.
 */
export function env(): Promise<TestEnv> {
  if (shared?.file !== runningFile) {
    const previous = shared;
    shared = { file: runningFile, env: startTestEnv() };
    previous?.env.then((e) => e.close()).catch(() => {});
  }
  return shared.env;
}

/**
 * When a test cannot run here: `ignore` true makes the runner report it as ignored (never as passed), and
 * `reason` says why, appended to its name (`... [ignored: needs TEST_DATABASE_URL]`).
 */
export interface TestOptions {
  ignore?: boolean;
  reason?: string;
}

/** `Deno.test` without the op and resource sanitizers (database clients keep sockets open). */
export function test(
  name: string,
  fn: (t: Deno.TestContext) => Promise<void> | void,
  options: TestOptions = {},
): void {
  const file = registeringFile;
  const ignore = options.ignore ?? false;
  Deno.test({
    name: ignore && options.reason ? `${name} [ignored: ${options.reason}]` : name,
    ignore,
    fn: (t) => {
      runningFile = file;
      return fn(t);
    },
    sanitizeOps: false,
    sanitizeResources: false,
  });
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON body, or null when the body is not JSON. Loosely typed on purpose: tests assert on it. */
  body: any;
  text: string;
}

export interface CallOptions {
  token?: string | undefined;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw body (no JSON encoding, no content type unless given in headers). */
  raw?: string;
}

/** One REST call under `/api` (or any path starting with `/`), returning status, headers and parsed body. */
export async function call(
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<ApiResponse> {
  const e = await env();
  return await callOn(e, method, path, options);
}

export async function callOn(e: TestEnv, method: string, path: string, options: CallOptions = {}) {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["Content-Type"] ??= "application/json";
  }
  const url = path.startsWith("/api") || path.startsWith("/svc") || path.startsWith("/admin") ||
      path.startsWith("/openapi") || path.startsWith("/docs") || path.startsWith("/health") ||
      path.startsWith("/ready") || path.startsWith("/metrics") ||
      path.startsWith("/.well") || path.startsWith("/oauth/")
    ? path
    : `/api${path}`;
  const res = await e.fetch(url, { method, headers, body: body ?? null });
  if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    // A stream (GET /events/stream) never ends by itself: its status and headers are the answer here.
    await res.body?.cancel();
    return { status: res.status, headers: res.headers, body: null, text: "" } as ApiResponse;
  }
  const text = await res.text();
  let parsed: any = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, headers: res.headers, body: parsed, text } as ApiResponse;
}

/** Operator API call with the test admin token; throws unless it succeeds. */
export async function admin(method: string, path: string, body?: unknown): Promise<any> {
  const res = await call(method, `/admin${path}`, { token: ADMIN_TOKEN, body: body ?? {} });
  if (res.status >= 300) throw new Error(`admin ${method} ${path} failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export interface ProjectFixture {
  orgId: string;
  projectId: string;
  prefix: string;
}

let prefixCounter = 0;

/** A fresh organization and project (unique prefix), with optional settings. */
export async function newProject(options: {
  plan?: string;
  reviewMode?: string;
  password?: string;
  settings?: Record<string, unknown>;
  prefix?: string;
} = {}): Promise<ProjectFixture> {
  const org = await admin("POST", "/orgs", { name: "Org", plan: options.plan ?? "team" });
  const prefix = options.prefix ??
    `P${String.fromCharCode(65 + (prefixCounter++ % 26))}${
      String.fromCharCode(65 + Math.floor(Math.random() * 26))
    }`;
  const project = await admin("POST", "/projects", {
    orgId: org.id,
    name: `Project ${prefix}`,
    ticketPrefix: prefix,
    ...(options.reviewMode ? { reviewMode: options.reviewMode } : {}),
    ...(options.password ? { password: options.password } : {}),
    ...(options.settings ? { settings: options.settings } : {}),
  });
  return { orgId: org.id, projectId: project.id, prefix };
}

export interface AgentFixture {
  token: string;
  sessionId: string;
  agentId: string;
  name: string;
  projectId: string;
}

let agentCounter = 0;

/** Pairs a new agent into the project through the real pairing flow (unique client IP per call). */
export async function pairAgent(
  projectId: string,
  options: { name?: string; role?: string; platform?: string; password?: string } = {},
): Promise<AgentFixture> {
  const name = options.name ?? `agent-${++agentCounter}-${crypto.randomUUID().slice(0, 4)}`;
  const code = await admin("POST", `/projects/${projectId}/pairing-codes`, {
    role: options.role ?? "generator",
  });
  const res = await call("POST", "/pair/connect", {
    body: {
      code: code.code,
      agentName: name,
      platform: options.platform ?? "claude-code",
      ...(options.password ? { password: options.password } : {}),
    },
    headers: {
      "X-Forwarded-For": `10.${agentCounter % 250}.${Math.floor(Math.random() * 250)}.${
        Math.floor(Math.random() * 250)
      }`,
    },
  });
  if (res.status !== 200) throw new Error(`pairing failed: ${res.status} ${res.text}`);
  return {
    token: res.body.data.sessionToken,
    sessionId: res.body.data.sessionId,
    agentId: res.body.data.agent.id,
    name,
    projectId,
  };
}

/** Moves the service clock forward. */
export async function advanceClock(ms: number): Promise<void> {
  await admin("POST", "/clock", { advanceMs: ms });
}
