import type { Context, Hono } from "hono";
import type { AppEnv } from "@/http/env.ts";
import { serviceCtx } from "@/http/env.ts";
import { actingCtx, type DashboardAction } from "@/domain/dashboard/access.ts";
import {
  mintPairingCode,
  PAIRABLE_ROLES,
  type PairableRole,
  releaseStaleClaim,
  revokeAgent,
} from "@/domain/dashboard/actions.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import { patchTicket } from "@/domain/tickets/patch.ts";
import { approveTicket } from "@/domain/tickets/approve.ts";
import { findTicketId, ticketNotFound } from "@/domain/core/ticket-refs.ts";
import { patchBrief } from "@/domain/brief/patch.ts";
import { BRIEF_FIELD_ORDER } from "@/domain/brief/content.ts";
import { PairResult } from "./views.tsx";
import {
  formExpired,
  page,
  type ProjectRequest,
  projectRequest,
  readForm,
  redirect,
  refusedPage,
} from "./respond.tsx";
import { csrfValid } from "./session.ts";

type Handler = (
  c: Context<AppEnv>,
  ctx: ActorCtx,
  get: (name: string) => string,
  r: ProjectRequest,
) => Promise<Response>;

/**
 * One human action: signed-in member (else redirect or 404), CSRF token (else 403), the role's right
 * (else 403), then the domain verb; its refusal is shown with the API's code and message.
 */
function action(what: DashboardAction, run: Handler) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const r = await projectRequest(c);
    if (r instanceof Response) return r;
    const get = await readForm(c);
    if (!csrfValid(r.s, get("csrf_token"))) return await formExpired(c, r.s);
    try {
      const ctx = await actingCtx(serviceCtx(c.get("deps")), r.member, what);
      return await run(c, ctx, get, r);
    } catch (err) {
      return await refusedPage(c, r.s, r.member, err);
    }
  };
}

/** The dashboard's form posts: move, approve, release a stale claim, revoke, pair, write the brief. */
export function registerFormPosts(app: Hono<AppEnv>): void {
  const base = (r: ProjectRequest) => `/projects/${r.member.project.id}`;

  app.post(
    "/projects/:projectId/tickets/:key/move",
    action("move", async (c, ctx, get, r) => {
      const key = c.req.param("key") ?? "";
      await patchTicket(ctx, { ticketId: key, status: get("status") });
      return redirect(c, `${base(r)}/tickets/${encodeURIComponent(key)}`);
    }),
  );

  app.post(
    "/projects/:projectId/tickets/:key/approve",
    action("approve", async (c, ctx, get, r) => {
      const key = c.req.param("key") ?? "";
      const id = await findTicketId(ctx.db, ctx.actor.projectId, key);
      if (!id) throw ticketNotFound(key);
      await approveTicket(ctx, id, { comment: get("comment") || undefined });
      return redirect(c, `${base(r)}/tickets/${encodeURIComponent(key)}`);
    }),
  );

  app.post(
    "/projects/:projectId/claims/:claimId/release",
    action("release_claim", async (c, ctx, _get, r) => {
      await releaseStaleClaim(ctx, c.req.param("claimId") ?? "");
      return redirect(c, `${base(r)}/claims`);
    }),
  );

  app.post(
    "/projects/:projectId/agents/:agentId/revoke",
    action("revoke", async (c, ctx, _get, r) => {
      await revokeAgent(ctx, c.req.param("agentId") ?? "");
      return redirect(c, `${base(r)}/agents`);
    }),
  );

  app.post(
    "/projects/:projectId/pair",
    action("pair", async (c, ctx, get, r) => {
      const role = (PAIRABLE_ROLES as readonly string[]).includes(get("role"))
        ? get("role") as PairableRole
        : "generator";
      const agentName = get("agentName").trim() || undefined;
      const issued = await mintPairingCode(ctx, { agentName, role });
      const body = JSON.stringify({ code: issued.code, ...(agentName ? { agentName } : {}) });
      const command =
        `curl -sS -X POST ${ctx.publicUrl}/api/pair/connect -H 'Content-Type: application/json' ` +
        `-d '${body.replace(/'/g, "'\\''")}'`;
      return await page(
        c,
        { title: "Pairing code", user: r.s.user, csrf: r.s.csrf, member: r.member, section: "agents" },
        <PairResult member={r.member} code={issued.code} expiresAt={issued.expiresAt} command={command} />,
        200,
      );
    }),
  );

  app.post(
    "/projects/:projectId/brief",
    action("brief", async (c, ctx, get, r) => {
      const patch: Record<string, string> = {};
      for (const field of BRIEF_FIELD_ORDER) if (field !== "custom") patch[field] = get(field);
      const expected = Number(get("expectedVersion"));
      await patchBrief(ctx, {
        ...patch,
        ...(Number.isInteger(expected) ? { expectedVersion: expected } : {}),
      });
      return redirect(c, `${base(r)}/brief`);
    }),
  );
}
