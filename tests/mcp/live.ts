// A real listening service on 127.0.0.1 (random port, PUBLIC_URL = that origin) for tests that drive
// /mcp with real clients, and a cookie-keeping "browser" that signs in and approves on the consent page
// over HTTP.
// deno-lint-ignore-file no-explicit-any
import { ADMIN_TOKEN, startTestEnv, type TestEnv } from "../helpers/env.ts";
import { formFields, projectOptions } from "../oauth/flow.ts";
import { contractChecked } from "../helpers/contract-check.ts";

export interface LiveService {
  origin: string;
  env: TestEnv;
  /** `METHOD /path` of every request the listener received, in order (what real clients did). */
  requests: string[];
  admin(method: string, path: string, body?: unknown): Promise<any>;
  close(): Promise<void>;
}

/** The whole app behind `Deno.serve` on 127.0.0.1; stops with `close()`. */
export async function startLiveService(): Promise<LiveService> {
  let e: TestEnv | null = null;
  const requests: string[] = [];
  const { port, shutdown } = await new Promise<{ port: number; shutdown: () => Promise<void> }>((resolve) => {
    const server = Deno.serve({
      hostname: "127.0.0.1",
      port: 0,
      onListen: ({ port }) => resolve({ port, shutdown: () => server.shutdown() }),
    }, (req) => {
      const url = new URL(req.url);
      requests.push(`${req.method} ${url.pathname}`);
      return e!.fetch(url.pathname + url.search, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        redirect: "manual",
      });
    });
  });
  const origin = `http://127.0.0.1:${port}`;
  e = await startTestEnv({ publicUrl: origin });
  const env = e;
  return {
    origin,
    env,
    requests,
    admin: async (method, path, body) => {
      const res = await env.fetch(`/admin${path}`, {
        method,
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
        body: JSON.stringify(body ?? {}),
      });
      const json = await res.json();
      if (res.status >= 300) {
        throw new Error(`admin ${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      }
      return json.data;
    },
    close: async () => {
      await shutdown();
      await env.close();
    },
  };
}

/** A user who is `role` of a fresh project in a fresh organization. */
export async function liveUser(live: LiveService, role = "member") {
  const org = await live.admin("POST", "/orgs", { name: "MCP org", plan: "team" });
  const prefix = `M${String.fromCharCode(65 + Math.floor(Math.random() * 26))}${
    String.fromCharCode(65 + Math.floor(Math.random() * 26))
  }`;
  const project = await live.admin("POST", "/projects", {
    orgId: org.id,
    name: `MCP project ${prefix}`,
    ticketPrefix: prefix,
  });
  const email = `mcp-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const password = "correct horse battery staple";
  const user = await live.admin("POST", "/users", { email, password, name: `MCP user ${prefix}` });
  await live.admin("POST", `/projects/${project.id}/members`, { userId: user.id, role });
  return {
    email,
    password,
    userId: user.id as string,
    orgId: org.id as string,
    projectId: project.id as string,
  };
}

/**
 * What a person does in the browser: opens the authorization URL, signs in, picks `projectId` and
 * approves. Returns the redirect the service answers with (`redirect_uri?code=...&state=...&iss=...`).
 */
export async function signInAndApprove(
  authorizationUrl: URL,
  user: { email: string; password: string; projectId: string },
): Promise<URL> {
  const cookies = new Map<string, string>();
  const request = async (url: string, form?: Record<string, string>) => {
    const headers: Record<string, string> = {};
    if (cookies.size > 0) headers.Cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    if (form) headers["Content-Type"] = "application/x-www-form-urlencoded";
    const res = await contractChecked(fetch)(url, {
      method: form ? "POST" : "GET",
      headers,
      body: form ? new URLSearchParams(form).toString() : null,
      redirect: "manual",
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const eq = pair!.indexOf("=");
      cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
    }
    return { status: res.status, text: await res.text(), location: res.headers.get("Location") };
  };
  const formUrl = `${authorizationUrl.origin}/oauth/authorize`;
  const signIn = await request(authorizationUrl.toString());
  if (signIn.status !== 200 || !signIn.text.includes("Sign in")) {
    throw new Error(`no sign-in page: ${signIn.status} ${signIn.text.slice(0, 200)}`);
  }
  const signedIn = await request(formUrl, {
    ...formFields(signIn.text),
    email: user.email,
    password: user.password,
  });
  if (signedIn.status !== 303 || !signedIn.location) throw new Error(`sign-in failed: ${signedIn.status}`);
  const consent = await request(new URL(signedIn.location, formUrl).toString());
  if (!projectOptions(consent.text).includes(user.projectId)) {
    throw new Error(`the consent page does not offer the project: ${consent.status}`);
  }
  const approved = await request(formUrl, {
    ...formFields(consent.text),
    project_id: user.projectId,
    action: "approve",
  });
  if (!approved.location) {
    throw new Error(`approve did not redirect: ${approved.status} ${approved.text.slice(0, 200)}`);
  }
  return new URL(approved.location);
}
