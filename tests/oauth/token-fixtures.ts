// deno-lint-ignore-file no-explicit-any
import { toJson } from "@/db/tables/types.ts";
import { hashToken } from "@/domain/core/crypto.ts";
import { admin, call, env } from "../helpers/mod.ts";

/** A known PKCE pair: the challenge is BASE64URL(SHA-256(verifier)), computed independently here. */
export const VERIFIER = "test-verifier-0123456789-abcdefghijklmnopqrstuvwxyz";
export const CHALLENGE = await s256(VERIFIER);

async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
export const REDIRECT = "https://app.example.com/callback";

let counter = 0;

export interface Grantee {
  userId: string;
  orgId: string;
  projectId: string;
  clientId: string;
}

/** A user who is `role` in a fresh project of a fresh organization, and a registered client. */
export async function grantee(role: "admin" | "member" | "viewer" = "member"): Promise<Grantee> {
  const n = ++counter;
  const tag = crypto.randomUUID().slice(0, 8);
  const org = await admin("POST", "/orgs", { name: `OAuth org ${n}`, plan: "team" });
  const prefix = `O${String.fromCharCode(65 + (n % 26))}${String.fromCharCode(65 + Math.floor(n / 26) % 26)}${
    String.fromCharCode(65 + Math.floor(Math.random() * 26))
  }`;
  const project = await admin("POST", "/projects", {
    orgId: org.id,
    name: `OAuth project ${n}`,
    ticketPrefix: prefix,
  });
  const user = await admin("POST", "/users", {
    email: `user-${tag}@example.com`,
    password: "correct horse battery",
    name: `User ${n}`,
  });
  await admin("POST", `/projects/${project.id}/members`, { userId: user.id, role });
  const clientId = await newClient([REDIRECT]);
  return { userId: user.id, orgId: org.id, projectId: project.id, clientId };
}

/** A registered client (row inserted directly). */
export async function newClient(redirectUris: string[]): Promise<string> {
  const { db, clock } = await env();
  const clientId = `client-${crypto.randomUUID()}`;
  await db.insertInto("oauth_clients").values({
    client_id: clientId,
    client_name: "Test client",
    redirect_uris: toJson(redirectUris),
    created_at: clock.now(),
  }).execute();
  return clientId;
}

/** An authorization code as the consent page would store it (60 s, S256 challenge of VERIFIER). */
export async function newCode(
  g: Grantee,
  options: {
    scope?: "read" | "write";
    redirectUri?: string;
    clientId?: string | null;
    challenge?: string;
    ttlMs?: number;
  } = {},
): Promise<{ code: string; id: string }> {
  const { db, clock } = await env();
  const code = `svc_ac_${crypto.randomUUID().replace(/-/g, "")}`;
  const id = crypto.randomUUID();
  const now = clock.now();
  await db.insertInto("oauth_codes").values({
    id,
    code_hash: hashToken(code),
    client_id: options.clientId === undefined ? g.clientId : options.clientId,
    redirect_uri: options.redirectUri ?? REDIRECT,
    code_challenge: options.challenge ?? CHALLENGE,
    user_id: g.userId,
    project_id: g.projectId,
    scope: options.scope ?? "write",
    created_at: now,
    expires_at: new Date(now.getTime() + (options.ttlMs ?? 60_000)),
  }).execute();
  return { code, id };
}

/** POST /api/oauth/token (or /revoke) with a JSON body, or form-encoded when `form` is set. */
export async function oauthPost(
  path: "/api/oauth/token" | "/api/oauth/revoke",
  params: Record<string, string>,
  form = false,
) {
  if (!form) return await call("POST", path, { body: params });
  return await call("POST", path, {
    raw: new URLSearchParams(params).toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
}

export async function redeem(
  g: Grantee,
  code: string,
  extra: Record<string, string> = {},
  form = false,
) {
  return await oauthPost("/api/oauth/token", {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    code_verifier: VERIFIER,
    client_id: g.clientId,
    ...extra,
  }, form);
}

export async function refresh(g: Grantee, refreshToken: string, extra: Record<string, string> = {}) {
  return await oauthPost("/api/oauth/token", {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: g.clientId,
    ...extra,
  });
}

/** A code redeemed: the token response. */
export async function tokens(g: Grantee, scope: "read" | "write" = "write"): Promise<any> {
  const { code } = await newCode(g, { scope });
  const res = await redeem(g, code);
  if (res.status !== 200) throw new Error(`redeem failed: ${res.status} ${res.text}`);
  return res.body;
}

/** The stored row of a refresh token, by its hash. */
export async function refreshRow(token: string): Promise<any> {
  const { db } = await env();
  return await db.selectFrom("oauth_refresh_tokens").selectAll()
    .where("token_hash", "=", hashToken(token)).executeTakeFirst();
}

/** Refresh tokens of a family that are neither used nor revoked. */
export async function liveInFamily(familyId: string): Promise<number> {
  const { db } = await env();
  const rows = await db.selectFrom("oauth_refresh_tokens").select("id").where("family_id", "=", familyId)
    .where("used_at", "is", null).where("revoked_at", "is", null).execute();
  return rows.length;
}

/** Refresh tokens started by a code that are neither used nor revoked. */
export async function liveFromCode(codeId: string): Promise<number> {
  const { db } = await env();
  const rows = await db.selectFrom("oauth_refresh_tokens").select("id").where("code_id", "=", codeId)
    .where("used_at", "is", null).where("revoked_at", "is", null).execute();
  return rows.length;
}

/** The JWT payload (not verified). */
export function claimsOf(accessToken: string): any {
  return JSON.parse(atob(accessToken.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")));
}
