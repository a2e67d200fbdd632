import type { Hono } from "hono";
import type { AppEnv } from "@/http/env.ts";
import { serviceCtx } from "@/http/env.ts";
import { dashboardBoard } from "@/domain/dashboard/board.ts";
import { ticketPage } from "@/domain/dashboard/ticket.ts";
import { liveClaims } from "@/domain/dashboard/claims.ts";
import { claimsMap, coordinationMarks, HOT_FILES_DAYS, hotFiles } from "@/domain/dashboard/claims-map.ts";
import { activityTimeline } from "@/domain/dashboard/activity.ts";
import { agentOptions, projectAgents } from "@/domain/dashboard/agents.ts";
import { threadList, threadWithMessages } from "@/domain/dashboard/threads.ts";
import { sprintDetail, sprintList } from "@/domain/dashboard/sprints.ts";
import { ledgerFeed } from "@/domain/dashboard/ledger.ts";
import { currentBrief } from "@/domain/dashboard/actions.ts";
import { may } from "@/domain/dashboard/access.ts";
import { Board, Ticket } from "./pages.tsx";
import { Agents, Brief, Claims, Ledger, Pair, Sprint, Sprints, Thread, Threads } from "./views.tsx";
import { notFoundPage, page, projectRequest } from "./respond.tsx";
import type { Section } from "./layout.tsx";

function pageNumber(v: string | undefined): number {
  const n = Number(v ?? "0");
  return Number.isInteger(n) && n >= 0 && n <= 10_000 ? n : 0;
}

/** The read views of one project: board, ticket, claims, agents, threads, sprints, ledger, brief. */
export function registerProjectPages(app: Hono<AppEnv>): void {
  const frame = (
    r: Exclude<Awaited<ReturnType<typeof projectRequest>>, Response>,
    title: string,
    section: Section,
  ) => ({
    title,
    user: r.s.user,
    csrf: r.s.csrf,
    member: r.member,
    section,
    events: r.events,
  });

  app.get("/projects/:projectId", async (c) => {
    const r = await projectRequest(c);
    if (r instanceof Response) return r;
    const ctx = serviceCtx(c.get("deps"));
    const filters = {
      sprintId: c.req.query("sprint") || undefined,
      assigneeId: c.req.query("assignee") || undefined,
      tag: c.req.query("tag")?.slice(0, 100) || undefined,
      page: pageNumber(c.req.query("page")),
    };
    const board = await dashboardBoard(ctx, r.member, filters);
    return await page(
      c,
      frame(r, "Board", "board"),
      <Board member={r.member} board={board} filters={filters} />,
    );
  });

  app.get("/projects/:projectId/tickets/:key", async (c) => {
    const r = await projectRequest(c);
    if (r instanceof Response) return r;
    const ctx = serviceCtx(c.get("deps"));
    const t = await ticketPage(ctx, r.member, c.req.param("key"));
    if (!t) return await notFoundPage(c, r.s);
    return await page(
      c,
      frame(r, t.key, "board"),
      <Ticket member={r.member} t={t} csrf={r.s.csrf} now={ctx.clock.now()} />,
    );
  });

  app.get("/projects/:projectId/claims", async (c) => {
    const r = await projectRequest(c);
    if (r instanceof Response) return r;
    const ctx = serviceCtx(c.get("deps"));
    const [claims, hot] = await Promise.all([liveClaims(ctx, r.member), hotFiles(ctx, r.member)]);
    const marks = await coordinationMarks(ctx, r.member, claims);
    return await page(
      c,
      frame(r, "Claims", "claims"),
      <Claims
        member={r.member}
        claims={claims}
        map={{ ...claimsMap(claims), ...marks }}
        hot={hot}
        hotDays={HOT_FILES_DAYS}
        csrf={r.s.csrf}
        now={ctx.clock.now()}
      />,
    );
  });

  app.get("/projects/:projectId/agents", async (c) => {
    const r = await projectRequest(c);
    if (r instanceof Response) return r;
    const ctx = serviceCtx(c.get("deps"));
    const [agents, timeline] = await Promise.all([
      projectAgents(ctx, r.member),
      activityTimeline(ctx, r.member),
    ]);
    return await page(
      c,
      frame(r, "Agents", "agents"),
      <Agents member={r.member} agents={agents} timeline={timeline} csrf={r.s.csrf} now={ctx.clock.now()} />,
    );
  });

  app.get("/projects/:projectId/threads", async (c) => {
    const r = await projectRequest(c);
    if (r instanceof Response) return r;
    const ctx = serviceCtx(c.get("deps"));
    const p = pageNumber(c.req.query("page"));
    const list = await threadList(ctx, r.member, p);
    return await page(
      c,
      frame(r, "Threads", "threads"),
      <Threads
        member={r.member}
        threads={list.threads}
        page={p}
        hasMore={list.hasMore}
        now={ctx.clock.now()}
      />,
    );
  });

  app.get("/projects/:projectId/threads/:threadId", async (c) => {
    const r = await projectRequest(c);
    if (r instanceof Response) return r;
    const ctx = serviceCtx(c.get("deps"));
    const thread = await threadWithMessages(ctx, r.member, c.req.param("threadId"));
    if (!thread) return await notFoundPage(c, r.s);
    return await page(c, frame(r, "Thread", "threads"), <Thread thread={thread} now={ctx.clock.now()} />);
  });

  app.get("/projects/:projectId/sprints", async (c) => {
    const r = await projectRequest(c);
    if (r instanceof Response) return r;
    const sprints = await sprintList(serviceCtx(c.get("deps")), r.member);
    return await page(c, frame(r, "Sprints", "sprints"), <Sprints member={r.member} sprints={sprints} />);
  });

  app.get("/projects/:projectId/sprints/:sprintId", async (c) => {
    const r = await projectRequest(c);
    if (r instanceof Response) return r;
    const sprint = await sprintDetail(serviceCtx(c.get("deps")), r.member, c.req.param("sprintId"));
    if (!sprint) return await notFoundPage(c, r.s);
    return await page(
      c,
      frame(r, `Sprint ${sprint.number}`, "sprints"),
      <Sprint member={r.member} sprint={sprint} />,
    );
  });

  app.get("/projects/:projectId/ledger", async (c) => {
    const r = await projectRequest(c);
    if (r instanceof Response) return r;
    const ctx = serviceCtx(c.get("deps"));
    const filters = {
      type: c.req.query("type") || undefined,
      agentId: c.req.query("agent") || undefined,
      ticket: c.req.query("ticket")?.slice(0, 30) || undefined,
      system: c.req.query("system") === "0" ? false : undefined,
      context: c.req.query("context") === "1" ? true : undefined,
      before: c.req.query("before") || undefined,
    };
    const [feed, agents] = await Promise.all([
      ledgerFeed(ctx, r.member, filters),
      agentOptions(ctx, r.member),
    ]);
    return await page(
      c,
      frame(r, "Ledger", "ledger"),
      <Ledger
        member={r.member}
        entries={feed.entries}
        filters={filters}
        agents={agents}
        nextBefore={feed.nextBefore}
        now={ctx.clock.now()}
      />,
    );
  });

  app.get("/projects/:projectId/brief", async (c) => {
    const r = await projectRequest(c);
    if (r instanceof Response) return r;
    const brief = await currentBrief(serviceCtx(c.get("deps")), r.member.project.id);
    return await page(
      c,
      frame(r, "Brief", "brief"),
      <Brief member={r.member} content={brief.content} version={brief.version} csrf={r.s.csrf} />,
    );
  });

  app.get("/projects/:projectId/pair", async (c) => {
    const r = await projectRequest(c);
    if (r instanceof Response) return r;
    if (!may(r.member.role, "pair")) return await notFoundPage(c, r.s);
    return await page(c, frame(r, "Pair an agent", "agents"), <Pair member={r.member} csrf={r.s.csrf} />);
  });
}
