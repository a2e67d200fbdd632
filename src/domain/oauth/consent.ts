import type { ServiceCtx } from "@/domain/core/context.ts";
import type { OAuthScope } from "@/shared/vocabulary.ts";
import { hitCounter, readCounter } from "@/domain/core/counters.ts";
import { hashPassword, hashToken, randomSecret, verifyPassword } from "@/domain/core/crypto.ts";
import { toJson } from "@/db/tables/types.ts";
import { findClient } from "./clients.ts";
import { checkRedirectUri, isLoopbackRedirect, redirectMatches } from "./redirect-uri.ts";
import { isOwnResource } from "./resource.ts";

/** Authorization codes live 60 seconds (OAUTH-039, design). */
export const CODE_TTL_MS = 60_000;
export const CODE_PREFIX = "svc_ac_";
/** Browser sign-in sessions of the consent page live 12 hours. */
export const WEB_SESSION_TTL_MS = 12 * 3600_000;
/** Failed sign-ins per client address: 10 per 5 minutes, then every attempt is refused until the window ends. */
export const SIGNIN_LIMIT = 10;
export const SIGNIN_WINDOW_MS = 5 * 60_000;

export interface AuthorizeParams {
  responseType: string | undefined;
  clientId: string | undefined;
  redirectUri: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: string | undefined;
  scope: string | undefined;
  state: string | undefined;
  /** RFC 8707 resource indicator; when sent it must name this service's tool server. */
  resource?: string | undefined;
}

/** The authorize request, validated: where the browser may be sent, and whether a code may be issued. */
export type AuthorizeCheck =
  /** Never redirect: unknown client, missing/unregistered/malformed redirect. */
  | { kind: "fatal"; reason: string }
  /** Redirect with `error` (the redirect is valid but the request is not). */
  | { kind: "redirect_error"; redirectUri: string; error: string; description: string }
  | {
    kind: "ok";
    redirectUri: string;
    clientId: string | null;
    clientName: string;
    codeChallenge: string;
    askedWrite: boolean;
  };

const CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/;

/** Checks the redirect first (never redirect to an unchecked URI), then the rest. */
export async function checkAuthorize(ctx: ServiceCtx, p: AuthorizeParams): Promise<AuthorizeCheck> {
  const redirectUri = p.redirectUri;
  if (redirectUri === undefined || redirectUri === "") {
    return { kind: "fatal", reason: "redirect_uri is missing" };
  }
  let clientId: string | null = null;
  let clientName = "Unregistered local application";
  if (p.clientId !== undefined && p.clientId !== "") {
    const client = await findClient(ctx, p.clientId);
    if (!client) return { kind: "fatal", reason: "unknown client" };
    if (!redirectMatches(redirectUri, client.redirectUris)) {
      return { kind: "fatal", reason: "redirect_uri is not registered for this client" };
    }
    clientId = client.clientId;
    clientName = client.name;
  } else if (!isLoopbackRedirect(redirectUri)) {
    return { kind: "fatal", reason: "client_id is required for a non-loopback redirect_uri" };
  } else if (!checkRedirectUri(redirectUri).ok) {
    // Without a client nothing was checked at registration: a control character (`%0D%0A`) here would
    // reach the Location header.
    return { kind: "fatal", reason: "redirect_uri is malformed" };
  }
  const fail = (error: string, description: string): AuthorizeCheck => ({
    kind: "redirect_error",
    redirectUri,
    error,
    description,
  });
  if (p.responseType !== "code") {
    return p.responseType === undefined || p.responseType === ""
      ? fail("invalid_request", "response_type is required")
      : fail("unsupported_response_type", "Only response_type=code is supported");
  }
  if (p.resource !== undefined && !isOwnResource(ctx.publicUrl, [p.resource])) {
    return fail("invalid_target", "resource must name this service's tool server (the MCP URL)");
  }
  if (p.codeChallengeMethod !== undefined && p.codeChallengeMethod !== "S256") {
    return fail("invalid_request", "code_challenge_method must be S256");
  }
  if (p.codeChallenge === undefined || p.codeChallenge === "") {
    return fail("invalid_request", "code_challenge is required (PKCE S256)");
  }
  if (!CHALLENGE.test(p.codeChallenge)) {
    return fail("invalid_request", "code_challenge must be 43 to 128 base64url characters");
  }
  const askedWrite = (p.scope ?? "").split(" ").includes("write");
  return { kind: "ok", redirectUri, clientId, clientName, codeChallenge: p.codeChallenge, askedWrite };
}

/** The user of a live browser session, or null. */
export async function sessionUser(
  ctx: ServiceCtx,
  cookieValue: string | undefined,
): Promise<{ id: string; email: string; name: string } | null> {
  if (!cookieValue || cookieValue.length > 200) return null;
  const row = await ctx.db.selectFrom("web_sessions")
    .innerJoin("users", "users.id", "web_sessions.user_id")
    .select(["users.id", "users.email", "users.name"])
    .where("web_sessions.id_hash", "=", hashToken(cookieValue))
    .where("web_sessions.expires_at", ">", ctx.clock.now())
    .executeTakeFirst();
  return row ?? null;
}

let dummyHash: Promise<string> | null = null;

export type SignInResult =
  | { ok: true; sessionValue: string; expiresAt: Date }
  | { ok: false; limited: boolean };

/**
 * Email and password sign-in. An unknown email costs the same scrypt work as a wrong password, and both
 * answer the same. Counts failed attempts per client address; past the limit nothing is checked.
 */
export async function signIn(
  ctx: ServiceCtx,
  address: string,
  email: string,
  password: string,
): Promise<SignInResult> {
  const now = ctx.clock.now();
  const key = `oauth_signin_failed:${address}`;
  if (await readCounter(ctx.db, key, SIGNIN_WINDOW_MS, now) >= SIGNIN_LIMIT) {
    return { ok: false, limited: true };
  }
  const user = email.length > 320 ? undefined : await ctx.db.selectFrom("users")
    .select(["id", "password_hash"])
    .where((eb) => eb(eb.fn("lower", ["email"]), "=", email.trim().toLowerCase()))
    .executeTakeFirst();
  dummyHash ??= hashPassword(randomSecret(16));
  const valid = await verifyPassword(password.slice(0, 1024), user?.password_hash ?? await dummyHash);
  if (!user || !valid) {
    await hitCounter(ctx.db, key, SIGNIN_WINDOW_MS, now);
    return { ok: false, limited: false };
  }
  const sessionValue = randomSecret(32);
  const expiresAt = new Date(now.getTime() + WEB_SESSION_TTL_MS);
  await ctx.db.insertInto("web_sessions").values({
    id_hash: hashToken(sessionValue),
    user_id: user.id,
    created_at: now,
    expires_at: expiresAt,
  }).execute();
  return { ok: true, sessionValue, expiresAt };
}

export interface UserProject {
  id: string;
  name: string;
  orgId: string;
  orgName: string;
  role: "admin" | "member" | "viewer";
}

/** The user's projects the consent page offers: active projects in active organizations. */
export async function userProjects(ctx: ServiceCtx, userId: string): Promise<UserProject[]> {
  const rows = await ctx.db.selectFrom("memberships")
    .innerJoin("projects", "projects.id", "memberships.project_id")
    .innerJoin("organizations", "organizations.id", "projects.org_id")
    .select([
      "projects.id",
      "projects.name",
      "projects.org_id",
      "organizations.name as org_name",
      "memberships.role",
      "projects.created_at",
    ])
    .where("memberships.user_id", "=", userId)
    .where("projects.status", "=", "active")
    .where("organizations.status", "=", "active")
    .orderBy("projects.created_at", "asc")
    .orderBy("projects.id", "asc")
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, orgId: r.org_id, orgName: r.org_name, role: r.role }));
}

/** `write` when asked and the membership allows it (admin, member); viewers always `read` (OAUTH-035). */
export function grantedScope(askedWrite: boolean, role: "admin" | "member" | "viewer"): OAuthScope {
  return askedWrite && role !== "viewer" ? "write" : "read";
}

export const MAX_PROJECT_NAME = 100;

/**
 * Creates a project from the consent page (design): in the organization of the user's oldest project
 * where the user is admin; without one, in a new organization (plan `free`) named after the user. The
 * user becomes the project's admin. Ticket prefix: the first letters of the name, upper-cased (2 to 10,
 * padded with `X`). One transaction.
 */
export async function createProjectForUser(
  ctx: ServiceCtx,
  user: { id: string; name: string; email: string },
  name: string,
): Promise<UserProject> {
  const now = ctx.clock.now();
  const projects = await userProjects(ctx, user.id);
  const adminOf = projects.find((p) => p.role === "admin");
  const letters = name.normalize("NFKD").replace(/[^A-Za-z]/g, "").toUpperCase().slice(0, 4);
  const prefix = letters.length >= 2 ? letters : (letters + "XX").slice(0, 2);
  const projectId = crypto.randomUUID();
  let orgId = adminOf?.orgId;
  let orgName = adminOf?.orgName ?? "";
  await ctx.db.transaction().execute(async (trx) => {
    if (!orgId) {
      orgId = crypto.randomUUID();
      orgName = `${user.name || user.email}'s organization`.slice(0, 200);
      await trx.insertInto("organizations").values({
        id: orgId,
        name: orgName,
        plan: "free",
        status: "active",
        created_at: now,
      }).execute();
    }
    await trx.insertInto("projects").values({
      id: projectId,
      org_id: orgId,
      name,
      ticket_prefix: prefix,
      settings: toJson({}),
      created_at: now,
      updated_at: now,
    }).execute();
    await trx.insertInto("event_cursors").values({ project_id: projectId }).execute();
    await trx.insertInto("memberships").values({
      project_id: projectId,
      user_id: user.id,
      role: "admin",
      created_at: now,
    }).execute();
  });
  return { id: projectId, name, orgId: orgId!, orgName, role: "admin" };
}

/** Stores a code (hashed) for the approved request and returns its clear form `svc_ac_...`. */
export async function issueCode(
  ctx: ServiceCtx,
  input: {
    clientId: string | null;
    redirectUri: string;
    codeChallenge: string;
    userId: string;
    projectId: string;
    scope: OAuthScope;
  },
): Promise<string> {
  const now = ctx.clock.now();
  const code = CODE_PREFIX + randomSecret(32);
  await ctx.db.insertInto("oauth_codes").values({
    id: crypto.randomUUID(),
    code_hash: hashToken(code),
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    code_challenge: input.codeChallenge,
    user_id: input.userId,
    project_id: input.projectId,
    scope: input.scope,
    created_at: now,
    expires_at: new Date(now.getTime() + CODE_TTL_MS),
    used_at: null,
  }).execute();
  return code;
}

/** Ends a browser session (sign-out): the cookie no longer signs anyone in. */
export async function signOut(ctx: ServiceCtx, cookieValue: string | undefined): Promise<void> {
  if (!cookieValue || cookieValue.length > 200) return;
  await ctx.db.deleteFrom("web_sessions").where("id_hash", "=", hashToken(cookieValue)).execute();
}

/** Per-form CSRF token bound to the browser cookie (session or pre-session) and the form's purpose. */
export function csrfToken(
  cookieValue: string,
  purpose: "signin" | "consent" | "dashboard",
): string {
  return hashToken(`oauth-csrf:${purpose}:${cookieValue}`);
}
