import type { Context, Hono } from "hono";
import type { FC } from "hono/jsx";
import type { AppEnv } from "@/http/env.ts";
import type { DashboardMember } from "@/domain/dashboard/access.ts";
import { fail } from "@/domain/core/errors.ts";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  setEndpointEnabled,
  type toEndpoint,
  type WebhookCtx,
} from "@/domain/webhooks/endpoints.ts";
import { listDeliveries, redeliver, type toDelivery } from "@/domain/webhooks/deliveries.ts";
import { Csrf } from "./layout.tsx";
import {
  formExpired,
  notFoundPage,
  page,
  type ProjectRequest,
  projectRequest,
  readForm,
  redirect,
  refusedPage,
} from "./respond.tsx";
import { csrfValid } from "./session.ts";

type Endpoint = ReturnType<typeof toEndpoint>;
type Delivery = ReturnType<typeof toDelivery>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const settingsOf = (m: DashboardMember) => `/projects/${m.project.id}/settings/webhooks`;

const WebhookList: FC<{ member: DashboardMember; endpoints: Endpoint[]; csrf: string }> = (
  { member, endpoints, csrf },
) => (
  <section aria-labelledby="webhooks-title">
    <h1 id="webhooks-title">Webhooks</h1>
    <p>
      Endpoints receive this project's events as signed Standard Webhooks deliveries (https only; the secret
      is shown once).
    </p>
    <table>
      <thead>
        <tr>
          <th scope="col">URL</th>
          <th scope="col">Events</th>
          <th scope="col">State</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {endpoints.map((e) => (
          <tr key={e.id}>
            <td>
              <a href={`${settingsOf(member)}/${e.id}`}>{e.url}</a>
              {e.description && <div>{e.description}</div>}
            </td>
            <td>{e.events.join(", ")}</td>
            <td>{e.enabled ? "enabled" : `disabled (${e.disabledReason ?? "operator"})`}</td>
            <td>
              {(["disable", "enable", "rotate", "delete"] as const)
                .filter((a) => (a === "disable" ? e.enabled : a === "enable" ? !e.enabled : true))
                .map((a) => (
                  <form key={a} method="post" action={`${settingsOf(member)}/${e.id}/${a}`} class="inline">
                    <Csrf token={csrf} />
                    <button type="submit">
                      {a === "rotate" ? "Rotate secret" : a[0]!.toUpperCase() + a.slice(1)}
                    </button>
                  </form>
                ))}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    {endpoints.length === 0 && <p>No endpoints yet.</p>}
    <h2 id="webhook-new">New endpoint</h2>
    <form method="post" action={settingsOf(member)} aria-labelledby="webhook-new">
      <Csrf token={csrf} />
      <label for="webhook-url">URL</label>
      <input id="webhook-url" name="url" type="url" required maxlength={2000} />
      <label for="webhook-events">Events (comma-separated kinds, `claim.*` or `*`)</label>
      <input id="webhook-events" name="events" type="text" required value="*" maxlength={2000} />
      <label for="webhook-description">Description</label>
      <input id="webhook-description" name="description" type="text" maxlength={500} />
      <p>
        <button type="submit">Create endpoint</button>
      </p>
    </form>
  </section>
);

const SecretOnce: FC<{ member: DashboardMember; endpoint: Endpoint & { secret: string } }> = (
  { member, endpoint },
) => (
  <section aria-labelledby="secret-title" class="once">
    <h1 id="secret-title">Signing secret</h1>
    <p>This secret of {endpoint.url} is shown once. Verify deliveries with any Standard Webhooks library.</p>
    <pre class="cmd" id="webhook-secret">{endpoint.secret}</pre>
    <button type="button" data-copy="webhook-secret">Copy secret</button>
    <p>
      <a href={settingsOf(member)}>Back to webhooks</a>
    </p>
  </section>
);

const Deliveries: FC<{ member: DashboardMember; endpoint: Endpoint; deliveries: Delivery[]; csrf: string }> =
  (
    { member, endpoint, deliveries, csrf },
  ) => (
    <section aria-labelledby="deliveries-title">
      <h1 id="deliveries-title">Deliveries to {endpoint.url}</h1>
      <table>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts (response codes)</th>
            <th scope="col">Last error</th>
            <th scope="col"></th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.id}>
              <td>#{d.seq} {d.kind}</td>
              <td>{d.status}</td>
              <td>{d.attempts} ({d.attemptLog.map((a) => a.status ?? "-").join(", ")})</td>
              <td>{d.lastError ?? ""}</td>
              <td>
                <form
                  method="post"
                  action={`${settingsOf(member)}/${endpoint.id}/deliveries/${d.id}/redeliver`}
                >
                  <Csrf token={csrf} />
                  <button type="submit">Redeliver</button>
                </form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {deliveries.length === 0 && <p>No deliveries yet.</p>}
      <p>
        <a href={settingsOf(member)}>Back to webhooks</a>
      </p>
    </section>
  );

const hookCtx = (c: Context<AppEnv>): WebhookCtx => {
  const deps = c.get("deps");
  return {
    db: deps.db,
    clock: deps.clock,
    destinations: { allowLoopback: deps.config.webhookAllowLoopback },
  };
};

const frame = (r: ProjectRequest, title: string) => ({
  title,
  user: r.s.user,
  csrf: r.s.csrf,
  member: r.member,
  events: r.events,
});

/** A project admin's request (others get the 404 page), with the webhook id checked when there is one. */
async function adminRequest(c: Context<AppEnv>): Promise<ProjectRequest | Response> {
  const r = await projectRequest(c);
  if (r instanceof Response) return r;
  const id = c.req.param("webhookId");
  if (r.member.role !== "admin" || (id !== undefined && !UUID.test(id))) return await notFoundPage(c, r.s);
  return r;
}

/** A form post of an admin: CSRF checked, refusals shown with the API's code and message. */
function post(run: (c: Context<AppEnv>, r: ProjectRequest, get: (n: string) => string) => Promise<Response>) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const r = await adminRequest(c);
    if (r instanceof Response) return r;
    const get = await readForm(c);
    if (!csrfValid(r.s, get("csrf_token"))) return await formExpired(c, r.s);
    try {
      return await run(c, r, get);
    } catch (err) {
      return await refusedPage(c, r.s, r.member, err);
    }
  };
}

/** Project settings, webhooks: admins list, create, disable/enable, rotate, delete and redeliver. */
export function registerWebhookPages(app: Hono<AppEnv>): void {
  const owner = (r: ProjectRequest) => ({ projectId: r.member.project.id });
  app.get("/projects/:projectId/settings/webhooks", async (c) => {
    const r = await adminRequest(c);
    if (r instanceof Response) return r;
    const list = await listEndpoints(hookCtx(c), owner(r), { limit: 100 });
    return await page(
      c,
      frame(r, "Webhooks"),
      <WebhookList member={r.member} endpoints={list.items} csrf={r.s.csrf} />,
    );
  });
  app.get("/projects/:projectId/settings/webhooks/:webhookId", async (c) => {
    const r = await adminRequest(c);
    if (r instanceof Response) return r;
    const ctx = hookCtx(c);
    const id = c.req.param("webhookId");
    try {
      const endpoint = await getEndpoint(ctx, owner(r), id);
      const list = await listDeliveries(ctx, owner(r), id, { limit: 100 });
      return await page(
        c,
        frame(r, "Webhook deliveries"),
        <Deliveries member={r.member} endpoint={endpoint} deliveries={list.items} csrf={r.s.csrf} />,
      );
    } catch {
      return await notFoundPage(c, r.s);
    }
  });
  app.post(
    "/projects/:projectId/settings/webhooks",
    post(async (c, r, get) => {
      const events = get("events").split(",").map((e) => e.trim()).filter(Boolean);
      if (events.length === 0) throw fail.validation("Name at least one event kind, or *");
      const description = get("description").trim() || undefined;
      const made = await createEndpoint(hookCtx(c), owner(r), {
        url: get("url").trim(),
        events,
        description,
      });
      return await page(c, frame(r, "Signing secret"), <SecretOnce member={r.member} endpoint={made} />);
    }),
  );
  app.post(
    "/projects/:projectId/settings/webhooks/:webhookId/:act{disable|enable|rotate|delete}",
    post(async (c, r) => {
      const ctx = hookCtx(c);
      const id = c.req.param("webhookId")!;
      const act = c.req.param("act");
      if (act === "rotate") {
        const rotated = await rotateSecret(ctx, owner(r), id);
        return await page(c, frame(r, "Signing secret"), <SecretOnce member={r.member} endpoint={rotated} />);
      }
      if (act === "delete") await deleteEndpoint(ctx, owner(r), id);
      else await setEndpointEnabled(ctx, owner(r), id, act === "enable");
      return redirect(c, settingsOf(r.member));
    }),
  );
  app.post(
    "/projects/:projectId/settings/webhooks/:webhookId/deliveries/:deliveryId/redeliver",
    post(async (c, r) => {
      const id = c.req.param("webhookId")!;
      const deliveryId = c.req.param("deliveryId")!;
      if (!UUID.test(deliveryId)) throw fail.notFound(`Delivery "${deliveryId}" not found`);
      await redeliver(hookCtx(c), owner(r), id, deliveryId);
      return redirect(c, `${settingsOf(r.member)}/${id}`);
    }),
  );
}
