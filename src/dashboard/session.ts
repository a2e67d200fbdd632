import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "@/http/env.ts";
import { serviceCtx } from "@/http/env.ts";
import { randomSecret, timingSafeEqual } from "@/domain/core/crypto.ts";
import { csrfToken, sessionUser, WEB_SESSION_TTL_MS } from "@/domain/oauth/consent.ts";
import type { DashboardUser } from "@/domain/dashboard/access.ts";

/** The dashboard's browser session (a `web_sessions` row, as the OAuth sign-in page's). */
export const DASHBOARD_COOKIE = "svc_session";
/** Pre-session cookie binding the sign-in form's CSRF token. */
export const DASHBOARD_PRE_COOKIE = "svc_pre";

/** Security headers of every dashboard response. */
export function securityHeaders(c: Context<AppEnv>): void {
  c.header(
    "Content-Security-Policy",
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
      "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  c.header("X-Frame-Options", "DENY");
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "same-origin");
  c.header("Cache-Control", "no-store");
}

function secure(c: Context<AppEnv>): boolean {
  return c.get("deps").config.publicUrl.startsWith("https:");
}

export function setDashboardCookie(c: Context<AppEnv>, name: string, value: string, maxAgeSeconds: number) {
  setCookie(c, name, value, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: secure(c),
    maxAge: maxAgeSeconds,
  });
}

export function setSession(c: Context<AppEnv>, value: string): void {
  setDashboardCookie(c, DASHBOARD_COOKIE, value, Math.floor(WEB_SESSION_TTL_MS / 1000));
}

export function clearSession(c: Context<AppEnv>): void {
  deleteCookie(c, DASHBOARD_COOKIE, { path: "/", secure: secure(c) });
}

export interface SignedIn {
  user: DashboardUser;
  sessionValue: string;
  csrf: string;
}

/** The signed-in user of the request, with the CSRF token of their forms, or null. */
export async function signedIn(c: Context<AppEnv>): Promise<SignedIn | null> {
  const value = getCookie(c, DASHBOARD_COOKIE);
  const user = await sessionUser(serviceCtx(c.get("deps")), value);
  if (!user || !value) return null;
  return { user, sessionValue: value, csrf: csrfToken(value, "dashboard") };
}

/** The sign-in form's CSRF token, creating the pre-session cookie when missing. */
export function signInCsrf(c: Context<AppEnv>): string {
  let pre = getCookie(c, DASHBOARD_PRE_COOKIE);
  if (!pre || !/^[A-Za-z0-9_-]{32,64}$/.test(pre)) {
    pre = randomSecret(32);
    setDashboardCookie(c, DASHBOARD_PRE_COOKIE, pre, 3600);
  }
  return csrfToken(pre, "signin");
}

/** Whether the posted sign-in token matches the pre-session cookie. */
export function signInCsrfValid(c: Context<AppEnv>, posted: string): boolean {
  const pre = getCookie(c, DASHBOARD_PRE_COOKIE);
  return !!pre && posted !== "" && timingSafeEqual(posted, csrfToken(pre, "signin"));
}

export function csrfValid(session: SignedIn, posted: string): boolean {
  return posted !== "" && timingSafeEqual(posted, session.csrf);
}
