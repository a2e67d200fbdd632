import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { Child } from "hono/jsx";
import type { AppEnv } from "@/http/env.ts";
import { serviceCtx } from "@/http/env.ts";
import { clientAddress } from "@/http/client-address.ts";
import { statusOf } from "@/http/errors.ts";
import { signIn, signOut } from "@/domain/oauth/consent.ts";
import { DomainError } from "@/domain/core/errors.ts";
import { type DashboardMember, projectMember } from "@/domain/dashboard/access.ts";
import { projectSummaries } from "@/domain/dashboard/projects.ts";
import { encodeEventCursor } from "@/domain/events/cursor.ts";
import { feedHead } from "@/domain/events/feed.ts";
import { Layout, type PageFrame } from "./layout.tsx";
import { Message, Projects, SignIn } from "./pages.tsx";
import { LIVE_JS } from "./live.ts";
import {
  clearSession,
  csrfValid,
  securityHeaders,
  setSession,
  type SignedIn,
  signedIn,
  signInCsrf,
  signInCsrfValid,
} from "./session.ts";
import { registerProjectPages } from "./project-pages.tsx";
import { registerActions } from "./actions.tsx";
import { eventStream } from "./events.ts";

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

/** A local path to return to after sign-in (never another origin). */
function safeNext(next: string | undefined): string {
  return next && /^\/projects\/[A-Za-z0-9/_?=&%.-]*$/.test(next) ? next : "/";
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

/**
 * `Server-Timing: total;dur=<ms>` on every page: the time the service spent on it (issue 14 asks under
 * 100 ms on the large project; `deno task bench` reads it). Pages only (not the event stream, not the
 * sign-in post, whose timing could tell a known email from an unknown one).
 */
const serverTiming: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  await next();
  if (c.res.headers.get("content-type")?.startsWith("text/html")) {
    c.res.headers.set("Server-Timing", `total;dur=${(performance.now() - started).toFixed(1)}`);
  }
};

/** The web dashboard at the origin root: sign-in, projects and each project's views (server-rendered). */
export function dashboardApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("/", serverTiming);
  app.use("/projects/*", serverTiming);

  app.get("/dashboard.js", (c) => {
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cache-Control", "no-cache");
    return c.body(LIVE_JS, 200, { "Content-Type": "text/javascript; charset=utf-8" });
  });

  app.get("/", async (c) => {
    const s = await signedIn(c);
    if (!s) {
      const csrf = signInCsrf(c);
      return await page(c, { title: "Sign in" }, <SignIn csrf={csrf} next={safeNext(c.req.query("next"))} />);
    }
    const ctx = serviceCtx(c.get("deps"));
    const projects = await projectSummaries(ctx, s.user.id);
    return await page(
      c,
      { title: "Projects", user: s.user, csrf: s.csrf },
      <Projects projects={projects} now={ctx.clock.now()} />,
    );
  });

  app.post("/signin", async (c) => {
    const get = await readForm(c);
    if (!signInCsrfValid(c, get("csrf_token"))) return await formExpired(c, null);
    const ctx = serviceCtx(c.get("deps"));
    const email = get("email");
    const result = await signIn(ctx, clientAddress(c), email, get("password"));
    if (!result.ok) {
      const csrf = signInCsrf(c);
      if (result.limited) c.header("Retry-After", "300");
      const error = result.limited
        ? "Too many sign-in attempts. Wait a few minutes."
        : "Email or password is incorrect.";
      return await page(
        c,
        { title: "Sign in" },
        <SignIn csrf={csrf} error={error} email={email} next={safeNext(get("next"))} />,
        result.limited ? 429 : 401,
      );
    }
    setSession(c, result.sessionValue);
    return redirect(c, safeNext(get("next")));
  });

  app.post("/signout", async (c) => {
    const s = await signedIn(c);
    const get = await readForm(c);
    if (s && !csrfValid(s, get("csrf_token"))) return await formExpired(c, s);
    if (s) await signOut(serviceCtx(c.get("deps")), s.sessionValue);
    clearSession(c);
    return redirect(c, "/");
  });

  app.get("/projects/:projectId/events", eventStream);
  registerProjectPages(app);
  registerActions(app);
  return app;
}
