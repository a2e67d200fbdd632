import type { Context } from "hono";
import type { Child } from "hono/jsx";
import type { AppEnv } from "@/http/env.ts";
import { serviceCtx } from "@/http/env.ts";
import { statusOf } from "@/http/errors.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { type DashboardMember, projectMember } from "@/domain/dashboard/access.ts";
import { encodeEventCursor } from "@/domain/events/cursor.ts";
import { feedHead } from "@/domain/events/feed.ts";
import { Layout, type PageFrame } from "./layout.tsx";
import { Message } from "./pages.tsx";
import { securityHeaders, type SignedIn, signedIn } from "./session.ts";

/*
 * How the dashboard answers: full pages, redirects, refusals and the signed-in project member of a request.
 * Shared by the app and its pages (imports run app -> pages -> respond, never back).
 */

type Status = 200 | 400 | 401 | 403 | 404 | 409 | 422 | 429;

/** Renders a full page with the dashboard's headers. */
export async function page(c: Context<AppEnv>, frame: PageFrame, body: Child, status: Status = 200) {
  securityHeaders(c);
  const html = await <Layout frame={frame}>{body}</Layout>;
  return c.html(`<!doctype html>\n${html}`, status);
}

export function redirect(c: Context<AppEnv>, to: string): Response {
  securityHeaders(c);
  return c.redirect(to, 303);
}

export async function notFoundPage(c: Context<AppEnv>, s: SignedIn | null) {
  return await page(
    c,
    { title: "Not found", user: s?.user, csrf: s?.csrf },
    <Message
      heading="Not found"
      text="There is no such page, or it belongs to a project you are not a member of."
      back="/"
    />,
    404,
  );
}

export async function refusedPage(c: Context<AppEnv>, s: SignedIn, member: DashboardMember, err: unknown) {
  if (!(err instanceof DomainError)) throw err;
  const status = ([400, 403, 404, 409, 422, 429] as const).find((x) => x === statusOf(err)) ?? 400;
  return await page(
    c,
    { title: "Action refused", user: s.user, csrf: s.csrf, member },
    <Message
      heading="Action refused"
      text={`${err.code}: ${err.message}`}
      back={c.req.header("Referer") ? undefined : `/projects/${member.project.id}`}
    />,
    status,
  );
}

export interface ProjectRequest {
  s: SignedIn;
  member: DashboardMember;
  /** The project's feed head when the request began (the page's live stream resumes from it). */
  events: string;
}

/**
 * Resolves the signed-in member of the path's project, or answers: signed out, a redirect to the sign-in
 * page; not a member (or unknown project), 404.
 */
export async function projectRequest(c: Context<AppEnv>): Promise<ProjectRequest | Response> {
  const s = await signedIn(c);
  if (!s) return redirect(c, `/?next=${encodeURIComponent(c.req.path)}`);
  const ctx = serviceCtx(c.get("deps"));
  const member = await projectMember(ctx, s.user, c.req.param("projectId") ?? "");
  if (!member) return await notFoundPage(c, s);
  const head = await feedHead(ctx.db, member.project.id);
  const events = `/projects/${member.project.id}/events?since=${encodeEventCursor(member.project.id, head)}`;
  return { s, member, events };
}

/** Reads an urlencoded form (anything else is an empty form, which fails the CSRF check). */
export async function readForm(c: Context<AppEnv>): Promise<(name: string) => string> {
  const type = c.req.header("content-type") ?? "";
  if (!type.toLowerCase().startsWith("application/x-www-form-urlencoded")) return () => "";
  const form = await c.req.parseBody();
  return (name) => {
    const v = form[name];
    return typeof v === "string" ? v : "";
  };
}

export async function formExpired(c: Context<AppEnv>, s: SignedIn | null) {
  return await page(
    c,
    { title: "Form expired", user: s?.user, csrf: s?.csrf },
    <Message
      heading="This form has expired"
      text="The form could not be verified. Reload the page and try again."
      back="/"
    />,
    403,
  );
}
