// Helpers of the OAuth tests: users with memberships, client registration, PKCE pairs, and a tiny
// cookie-keeping "browser" that drives the consent page over in-process HTTP.
import { createHash } from "node:crypto";
import { admin, call, env, newProject } from "../helpers/mod.ts";

export function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  return { verifier, challenge };
}

let userSeq = 0;

/** A user (operator API) who is `role` of a fresh project. */
export async function newUser(role: "admin" | "member" | "viewer" = "member") {
  const project = await newProject();
  const email = `user${++userSeq}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const password = `pw-${crypto.randomUUID()}`;
  const user = await admin("POST", "/users", { email, password, name: `User ${userSeq}` });
  await admin("POST", `/projects/${project.projectId}/members`, { userId: user.id, role });
  return { email, password, userId: user.id as string, ...project };
}

let addressSeq = 0;

export async function registerClient(redirectUris: string[], clientName = "Test client"): Promise<string> {
  addressSeq++;
  const res = await call("POST", "/api/oauth/register", {
    body: { client_name: clientName, redirect_uris: redirectUris },
    headers: { "X-Forwarded-For": `10.77.${Math.floor(addressSeq / 250)}.${(addressSeq % 250) + 1}` },
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${res.text}`);
  return res.body.client_id;
}

export function authorizeQuery(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.append(k, v);
  return `/oauth/authorize?${q.toString()}`;
}

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

/** Hidden and other named inputs of the page's form. */
export function formFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    out[unescape(m[1]!)] = unescape(m[2]!);
  }
  return out;
}

function unescape(s: string): string {
  return s.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&amp;/g, "&");
}

/** Option values of the Project chooser. */
export function projectOptions(html: string): string[] {
  const select = /<select id="project" name="project_id">([\s\S]*?)<\/select>/.exec(html)?.[1] ?? "";
  return [...select.matchAll(/<option value="([^"]*)"/g)].map((m) => unescape(m[1]!)).filter((v) => v !== "");
}

/** A cookie-keeping client of the in-process app (no redirects followed). */
export class Browser {
  cookies = new Map<string, string>();
  /** Each browser has its own client address (X-Forwarded-For is trusted from loopback in tests). */
  address = `10.88.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250) + 1}`;

  async request(method: string, path: string, form?: Record<string, string>): Promise<Page> {
    const e = await env();
    const headers: Record<string, string> = { "X-Forwarded-For": this.address };
    if (this.cookies.size > 0) {
      headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    }
    let body: string | undefined;
    if (form) {
      headers["Content-Type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(form).toString();
    }
    const res = await e.fetch(path, { method, headers, body: body ?? null, redirect: "manual" });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const eq = pair!.indexOf("=");
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1));
    }
    return {
      status: res.status,
      headers: res.headers,
      text: await res.text(),
      location: res.headers.get("location"),
    };
  }

  get(path: string): Promise<Page> {
    return this.request("GET", path);
  }

  post(form: Record<string, string>): Promise<Page> {
    return this.request("POST", "/oauth/authorize", form);
  }

  /** Opens the authorize URL and signs in; returns the consent page. */
  async signIn(path: string, email: string, password: string): Promise<Page> {
    const page = await this.get(path);
    if (page.status !== 200 || !page.text.includes("Sign in")) {
      throw new Error(`no sign-in page: ${page.status}`);
    }
    const posted = await this.post({ ...formFields(page.text), email, password });
    if (posted.status !== 303 || !posted.location) throw new Error(`sign-in failed: ${posted.status}`);
    return await this.get(posted.location);
  }
}
