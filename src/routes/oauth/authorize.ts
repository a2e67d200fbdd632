import { type Context, Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "@/http/env.ts";
import { serviceCtx } from "@/http/env.ts";
import { clientAddress } from "@/http/client-address.ts";
import { randomSecret, timingSafeEqual } from "@/domain/core/crypto.ts";
import { issuerOf } from "@/domain/oauth/access-token.ts";
import {
  type AuthorizeParams,
  checkAuthorize,
  createProjectForUser,
  csrfToken,
  grantedScope,
  issueCode,
  MAX_PROJECT_NAME,
  sessionUser,
  signIn,
  userProjects,
  WEB_SESSION_TTL_MS,
} from "@/domain/oauth/consent.ts";
import { consentPage, errorPage, formExpiredPage, type Hidden, signInPage } from "./page.ts";

export const SESSION_COOKIE = "svc_oauth_session";
export const PRE_COOKIE = "svc_oauth_pre";

const PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "code_challenge",
  "code_challenge_method",
  "scope",
  "state",
  "resource",
] as const;

/** Clickjacking and caching headers of every page (and redirect) of the consent flow. */
function pageHeaders(c: Context<AppEnv>): void {
  c.header(
    "Content-Security-Policy",
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  c.header("X-Frame-Options", "DENY");
  c.header("Cache-Control", "no-store");
  c.header("Pragma", "no-cache");
  c.header("Referrer-Policy", "no-referrer");
  c.header("X-Content-Type-Options", "nosniff");
}

function html(c: Context<AppEnv>, body: string, status: 200 | 400 | 401 | 403 | 429): Response {
  pageHeaders(c);
  return c.html(body, status);
}

/** Reads the authorize parameters; null when one of them appears twice (RFC 6749 3.1: refused, no redirect). */
function readParams(
  get: (name: string) => string[] | undefined,
): { params: AuthorizeParams; hidden: Hidden } | null {
  const hidden: Hidden = {};
  for (const name of PARAMS) {
    const values = get(name);
    if (values && values.length > 1) return null;
    if (values && values.length === 1) hidden[name] = values[0]!;
  }
  return {
    hidden,
    params: {
      responseType: hidden.response_type,
      clientId: hidden.client_id,
      redirectUri: hidden.redirect_uri,
      codeChallenge: hidden.code_challenge,
      codeChallengeMethod: hidden.code_challenge_method,
      scope: hidden.scope,
      state: hidden.state,
      resource: hidden.resource,
    },
  };
}

function withParams(redirectUri: string, values: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined) query.set(k, v);
  return redirectUri + (redirectUri.includes("?") ? "&" : "?") + query.toString();
}

function redirectTo(c: Context<AppEnv>, location: string): Response {
  pageHeaders(c);
  return c.redirect(location, 303);
}

function secure(c: Context<AppEnv>): boolean {
  return c.get("deps").config.publicUrl.startsWith("https:");
}

function setSessionCookie(c: Context<AppEnv>, name: string, value: string, maxAgeSeconds: number): void {
  setCookie(c, name, value, {
    path: "/oauth",
    httpOnly: true,
    sameSite: "Lax",
    secure: secure(c),
    maxAge: maxAgeSeconds,
  });
}

/** The host of the redirect as written (scheme-less for custom schemes), shown verbatim. */
function redirectHost(redirectUri: string): string {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(redirectUri);
  if (m) return m[1]!;
  return redirectUri.split(/[?#]/)[0]!;
}

function renderSignIn(
  c: Context<AppEnv>,
  hidden: Hidden,
  status: 200 | 401 | 429,
  error?: string,
  email?: string,
): Response {
  let pre = getCookie(c, PRE_COOKIE);
  if (!pre || !/^[A-Za-z0-9_-]{32,64}$/.test(pre)) {
    pre = randomSecret(32);
    setSessionCookie(c, PRE_COOKIE, pre, 3600);
  }
  const csrf = csrfToken(pre, "signin");
  return html(
    c,
    signInPage({ hidden, csrf, ...(error ? { error } : {}), ...(email ? { email } : {}) }),
    status,
  );
}

async function renderConsent(
  c: Context<AppEnv>,
  hidden: Hidden,
  sessionValue: string,
  user: { id: string; email: string },
  check: { clientName: string; clientId: string | null; redirectUri: string; askedWrite: boolean },
  status: 200 | 400 = 200,
  error?: string,
): Promise<Response> {
  const ctx = serviceCtx(c.get("deps"));
  const projects = await userProjects(ctx, user.id);
  const csrf = csrfToken(sessionValue, "consent");
  return html(
    c,
    consentPage({
      hidden,
      csrf,
      clientName: check.clientName,
      registered: check.clientId !== null,
      redirectHost: redirectHost(check.redirectUri),
      userEmail: user.email,
      access: check.askedWrite ? "write" : "read",
      askedWrite: check.askedWrite,
      projects: projects.map((p) => ({
        id: p.id,
        name: p.name,
        orgName: p.orgName,
        access: grantedScope(check.askedWrite, p.role),
      })),
      ...(error ? { error } : {}),
    }),
    status,
  );
}

/** `GET /oauth/authorize` and its form posts (`POST /oauth/authorize`). */
export function authorizeApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get("/oauth/authorize", async (c) => {
    const ctx = serviceCtx(c.get("deps"));
    const read = readParams((name) => c.req.queries(name));
    if (!read) return html(c, errorPage(), 400);
    const check = await checkAuthorize(ctx, read.params);
    if (check.kind === "fatal") return html(c, errorPage(), 400);
    if (check.kind === "redirect_error") {
      return redirectTo(
        c,
        withParams(check.redirectUri, {
          error: check.error,
          error_description: check.description,
          state: read.params.state,
          iss: issuerOf(ctx.publicUrl),
        }),
      );
    }
    const sessionValue = getCookie(c, SESSION_COOKIE);
    const user = await sessionUser(ctx, sessionValue);
    if (!user || !sessionValue) return renderSignIn(c, read.hidden, 200);
    return await renderConsent(c, read.hidden, sessionValue, user, check);
  });

  app.post("/oauth/authorize", async (c) => {
    const ctx = serviceCtx(c.get("deps"));
    const type = c.req.header("content-type") ?? "";
    if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
      return html(c, formExpiredPage(), 400);
    }
    const form = await c.req.parseBody({ all: true });
    const field = (name: string): string[] | undefined => {
      const v = form[name];
      if (v === undefined) return undefined;
      const list = Array.isArray(v) ? v : [v];
      return list.map((x) => (typeof x === "string" ? x : ""));
    };
    const one = (name: string): string => {
      const v = field(name);
      return v && v.length === 1 ? v[0]! : "";
    };
    const read = readParams(field);
    if (!read) return html(c, errorPage(), 400);
    const check = await checkAuthorize(ctx, read.params);
    if (check.kind === "fatal") return html(c, errorPage(), 400);
    const state = read.params.state;
    if (check.kind === "redirect_error") {
      return redirectTo(
        c,
        withParams(check.redirectUri, {
          error: check.error,
          error_description: check.description,
          state,
          iss: issuerOf(ctx.publicUrl),
        }),
      );
    }
    const action = one("action");
    const csrf = one("csrf_token");

    if (action === "signin") {
      const pre = getCookie(c, PRE_COOKIE);
      if (!pre || csrf === "" || !timingSafeEqual(csrf, csrfToken(pre, "signin"))) {
        return html(c, formExpiredPage(), 403);
      }
      const email = one("email");
      const result = await signIn(ctx, clientAddress(c), email, one("password"));
      if (!result.ok) {
        if (result.limited) {
          c.header("Retry-After", "300");
          return renderSignIn(
            c,
            read.hidden,
            429,
            "Too many sign-in attempts. Wait a few minutes.",
            email,
          );
        }
        return renderSignIn(c, read.hidden, 401, "Email or password is incorrect.", email);
      }
      setSessionCookie(c, SESSION_COOKIE, result.sessionValue, Math.floor(WEB_SESSION_TTL_MS / 1000));
      const query = new URLSearchParams(read.hidden).toString();
      return redirectTo(c, `/oauth/authorize?${query}`);
    }

    if (action !== "approve" && action !== "deny") return html(c, formExpiredPage(), 400);
    const sessionValue = getCookie(c, SESSION_COOKIE);
    const user = await sessionUser(ctx, sessionValue);
    if (!user || !sessionValue) {
      return renderSignIn(c, read.hidden, 401, "Your sign-in has expired. Sign in again.");
    }
    if (csrf === "" || !timingSafeEqual(csrf, csrfToken(sessionValue, "consent"))) {
      return html(c, formExpiredPage(), 403);
    }
    if (action === "deny") {
      return redirectTo(
        c,
        withParams(check.redirectUri, { error: "access_denied", state, iss: issuerOf(ctx.publicUrl) }),
      );
    }
    const newName = one("new_project_name").trim();
    let project: { id: string; role: "admin" | "member" | "viewer" } | undefined;
    if (newName !== "") {
      if (newName.length > MAX_PROJECT_NAME || !newName.isWellFormed() || newName.includes("\u0000")) {
        return await renderConsent(
          c,
          read.hidden,
          sessionValue,
          user,
          check,
          400,
          `A project name has at most ${MAX_PROJECT_NAME} characters.`,
        );
      }
      project = await createProjectForUser(ctx, user, newName);
    } else {
      const chosen = one("project_id");
      project = (await userProjects(ctx, user.id)).find((p) => p.id === chosen);
      if (!project) {
        return await renderConsent(
          c,
          read.hidden,
          sessionValue,
          user,
          check,
          400,
          "Choose one of your projects or name a new one.",
        );
      }
    }
    // The user may grant less than asked (`access=read`), never more: write only when asked for.
    const scope = grantedScope(check.askedWrite && one("access") !== "read", project.role);
    const code = await issueCode(ctx, {
      clientId: check.clientId,
      redirectUri: check.redirectUri,
      codeChallenge: check.codeChallenge,
      userId: user.id,
      projectId: project.id,
      scope,
    });
    return redirectTo(c, withParams(check.redirectUri, { code, state, iss: issuerOf(ctx.publicUrl) }));
  });

  return app;
}
