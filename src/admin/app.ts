import type { Context } from "hono";
import { OpenAPIHono, type RouteConfig, type z } from "@hono/zod-openapi";
import type { AppEnv } from "@/http/env.ts";
import { errorBody, fieldErrors } from "@/http/errors.ts";
import { ok } from "@/http/envelope.ts";
import { timingSafeEqual } from "@/domain/core/crypto.ts";
import { DomainError } from "@/domain/core/errors.ts";
import * as operator from "@/domain/operator/operator.ts";
import * as operatorRead from "@/domain/operator/read.ts";
import * as operatorRevoke from "@/domain/operator/revoke.ts";
import { advanceTestClock } from "@/domain/maintenance/test-clock.ts";
import { rotateSigningKey } from "@/domain/oauth/keys.ts";
import * as webhooks from "@/domain/webhooks/endpoints.ts";
import { listDeliveries, redeliver } from "@/domain/webhooks/deliveries.ts";
import { ID_PATTERN, LedgerExportQuery, PageQuery } from "@/contracts/operator.ts";
import { chainPage, operatorCheckpoints } from "@/domain/audit/export.ts";
import { serviceCtx } from "@/http/env.ts";
import { adminRoutes as r, webhookRouteGroups } from "./routes.ts";
import { operatorDocumentText } from "./openapi.ts";

/** `limit` (1 to 100, default 50) and `cursor` of a list; 400 VALIDATION_ERROR otherwise. */
function pageOf(c: AdminContext): operatorRead.Page {
  const result = PageQuery.safeParse(c.req.query());
  if (!result.success) {
    throw new DomainError("invalid", "VALIDATION_ERROR", "Validation failed", {
      fields: fieldErrors(result.error),
    });
  }
  return { limit: result.data.limit ?? 50, cursor: result.data.cursor };
}

/** `afterSeq` and `limit` of a ledger export; 400 VALIDATION_ERROR otherwise. */
function exportOf(c: AdminContext): { afterSeq: number; limit: number } {
  const result = LedgerExportQuery.safeParse(c.req.query());
  if (!result.success) {
    throw new DomainError("invalid", "VALIDATION_ERROR", "Validation failed", {
      fields: fieldErrors(result.error),
    });
  }
  return { afterSeq: result.data.afterSeq ?? 0, limit: result.data.limit ?? 500 };
}

/** A list in the envelope: `data` is the page, `meta.nextCursor` the next one (null on the last). */
function listed(c: AdminContext, result: { items: unknown[]; nextCursor: string | null }): Response {
  return ok(c, result.items, 200, { nextCursor: result.nextCursor });
}

async function parse<T extends z.ZodType>(schema: T, req: { text(): Promise<string> }): Promise<z.output<T>> {
  let raw: unknown;
  try {
    const text = await req.text();
    raw = text ? JSON.parse(text) : {};
  } catch {
    throw new DomainError("invalid", "VALIDATION_ERROR", "Malformed JSON in request body", { fields: [] });
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    throw new DomainError("invalid", "VALIDATION_ERROR", "Validation failed", {
      fields: fieldErrors(result.error),
    });
  }
  return result.data;
}

type AdminContext = Context<AppEnv>;

/**
 * Wraps a handler so that every path parameter named `...Id` is checked before it reaches the database
 * (a malformed uuid would otherwise fail inside PostgreSQL with a 500). Every `/admin` route goes
 * through this, so a new route with an id parameter is covered without further work.
 */
function withIds(handler: (c: AdminContext, ids: Record<string, string>) => Promise<Response>) {
  return async (c: AdminContext): Promise<Response> => {
    const ids: Record<string, string> = {};
    const fields: { path: string; message: string; code: string }[] = [];
    for (const [name, value] of Object.entries(c.req.param() as Record<string, string>)) {
      if (!name.endsWith("Id")) continue;
      if (ID_PATTERN.test(value)) ids[name] = value.toLowerCase();
      else fields.push({ path: name, message: "Expected an id (UUID)", code: "invalid_format" });
    }
    if (fields.length > 0) {
      throw new DomainError(
        "invalid",
        "VALIDATION_ERROR",
        `Malformed ${fields.map((f) => f.path).join(", ")}`,
        {
          fields,
        },
      );
    }
    return await handler(c, ids);
  };
}

type BodySchema<R> = R extends
  { request: { body: { content: { "application/json": { schema: infer S extends z.ZodType } } } } } ? S
  : never;

/** The JSON body schema a route documents: the one its handler parses with. */
function bodyOf<R extends RouteConfig>(route: R): BodySchema<R> {
  const content = route.request?.body?.content as Record<string, { schema: unknown }> | undefined;
  return content?.["application/json"]?.schema as BodySchema<R>;
}

/** Hono's form of a route's path template: `/orgs/{orgId}` -> `/orgs/:orgId`. */
const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");

type Handler = (c: AdminContext, ids: Record<string, string>) => Promise<Response>;

/** Documents the route in the operator document and serves it (ids checked by `withIds`). */
function serve(admin: OpenAPIHono<AppEnv>, route: RouteConfig, handler: Handler): void {
  admin.openAPIRegistry.registerPath(route);
  admin.on(route.method.toUpperCase(), honoPath(route.path), withIds(handler));
}

const ctx = (c: { get(k: "deps"): AppEnv["Variables"]["deps"] }) => ({
  db: c.get("deps").db,
  clock: c.get("deps").clock,
});

/** Bearer `SVC_ADMIN_TOKEN`; off (404) when no admin token is configured. */
function adminAuth(admin: OpenAPIHono<AppEnv>): void {
  admin.use("*", async (c, next) => {
    const expected = c.get("deps").config.adminToken;
    if (!expected) {
      return c.json(
        errorBody(
          "NOT_FOUND",
          "The operator API is off: restart the server with SVC_ADMIN_TOKEN set to turn it on",
        ),
        404,
      );
    }
    const supplied = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1]?.trim() ?? "";
    if (!timingSafeEqual(supplied, expected)) {
      return c.json(errorBody("UNAUTHORIZED", "Missing or wrong admin token"), 401);
    }
    await next();
  });
}

function writes(admin: OpenAPIHono<AppEnv>): void {
  serve(
    admin,
    r.createOrg,
    async (c) => ok(c, await operator.createOrg(ctx(c), await parse(bodyOf(r.createOrg), c.req)), 201),
  );
  serve(
    admin,
    r.updateOrg,
    async (c, { orgId }) =>
      ok(c, await operator.updateOrg(ctx(c), orgId!, await parse(bodyOf(r.updateOrg), c.req))),
  );
  serve(
    admin,
    r.createUser,
    async (c) => ok(c, await operator.createUser(ctx(c), await parse(bodyOf(r.createUser), c.req)), 201),
  );
  serve(
    admin,
    r.createProject,
    async (c) =>
      ok(c, await operator.createProject(ctx(c), await parse(bodyOf(r.createProject), c.req)), 201),
  );
  serve(
    admin,
    r.updateProject,
    async (c, { projectId }) =>
      ok(c, await operator.updateProject(ctx(c), projectId!, await parse(bodyOf(r.updateProject), c.req))),
  );
  serve(
    admin,
    r.addMember,
    async (c, { projectId }) =>
      ok(c, await operator.addMember(ctx(c), projectId!, await parse(bodyOf(r.addMember), c.req)), 201),
  );
  serve(admin, r.createPairingCode, async (c, { projectId }) =>
    ok(
      c,
      await operator.createAdminPairingCode(
        ctx(c),
        projectId!,
        await parse(bodyOf(r.createPairingCode), c.req),
      ),
      201,
    ));
  serve(
    admin,
    r.createApiKey,
    async (c, { projectId }) =>
      ok(c, await operator.createApiKey(ctx(c), projectId!, await parse(bodyOf(r.createApiKey), c.req)), 201),
  );
}

/** Undo, signing keys and the test clock. */
function actions(admin: OpenAPIHono<AppEnv>): void {
  // Undo: revoke a key or an agent, end a session, remove a member (see domain/operator/revoke.ts).
  serve(
    admin,
    r.revokeApiKey,
    async (c, { projectId, keyId }) => ok(c, await operatorRevoke.revokeApiKey(ctx(c), projectId!, keyId!)),
  );
  serve(
    admin,
    r.revokeAgent,
    async (c, { projectId, agentId }) =>
      ok(c, await operatorRevoke.revokeAgent(ctx(c), projectId!, agentId!)),
  );
  serve(
    admin,
    r.endSession,
    async (c, { sessionId }) => ok(c, await operatorRevoke.endSession(ctx(c), sessionId!)),
  );
  serve(
    admin,
    r.removeMember,
    async (c, { projectId, userId }) => ok(c, await operatorRevoke.removeMember(ctx(c), projectId!, userId!)),
  );

  // A new OAuth signing key signs from now on; older keys keep verifying until their tokens expire.
  serve(
    admin,
    r.rotateKeys,
    async (c) => ok(c, await rotateSigningKey({ ...ctx(c), publicUrl: c.get("deps").config.publicUrl }), 201),
  );
  serve(admin, r.advanceClock, async (c) => {
    const deps = c.get("deps");
    if (!deps.config.testClock) return c.json(errorBody("NOT_FOUND", "The test clock is off"), 404);
    const { advanceMs } = await parse(bodyOf(r.advanceClock), c.req);
    // The offset lives in the database: every instance on it moves with this one.
    return ok(c, { now: (await advanceTestClock(deps.db, deps.clock, advanceMs)).toISOString() });
  });
}

const hookCtx = (c: AdminContext): webhooks.WebhookCtx => ({
  ...ctx(c),
  destinations: { allowLoopback: c.get("deps").config.webhookAllowLoopback },
});

/** The webhook routes of projects and, as partner endpoints, of organisations (same shape). */
function webhookRoutes(admin: OpenAPIHono<AppEnv>): void {
  const owners = [
    {
      routes: webhookRouteGroups.project,
      owner: (ids: Record<string, string>) => ({ projectId: ids.projectId! }),
    },
    { routes: webhookRouteGroups.org, owner: (ids: Record<string, string>) => ({ orgId: ids.orgId! }) },
  ];
  for (const { routes: w, owner } of owners) {
    serve(
      admin,
      w.create,
      async (c, ids) =>
        ok(
          c,
          await webhooks.createEndpoint(hookCtx(c), owner(ids), await parse(bodyOf(w.create), c.req)),
          201,
        ),
    );
    serve(
      admin,
      w.list,
      async (c, ids) => listed(c, await webhooks.listEndpoints(hookCtx(c), owner(ids), pageOf(c))),
    );
    serve(
      admin,
      w.get,
      async (c, ids) => ok(c, await webhooks.getEndpoint(hookCtx(c), owner(ids), ids.webhookId!)),
    );
    serve(admin, w.update, async (c, ids) =>
      ok(
        c,
        await webhooks.updateEndpoint(
          hookCtx(c),
          owner(ids),
          ids.webhookId!,
          await parse(bodyOf(w.update), c.req),
        ),
      ));
    serve(
      admin,
      w.disable,
      async (c, ids) =>
        ok(c, await webhooks.setEndpointEnabled(hookCtx(c), owner(ids), ids.webhookId!, false)),
    );
    serve(
      admin,
      w.enable,
      async (c, ids) =>
        ok(c, await webhooks.setEndpointEnabled(hookCtx(c), owner(ids), ids.webhookId!, true)),
    );
    serve(
      admin,
      w.delete,
      async (c, ids) => ok(c, await webhooks.deleteEndpoint(hookCtx(c), owner(ids), ids.webhookId!)),
    );
    serve(
      admin,
      w.rotateSecret,
      async (c, ids) => ok(c, await webhooks.rotateSecret(hookCtx(c), owner(ids), ids.webhookId!)),
    );
    serve(
      admin,
      w.deliveries,
      async (c, ids) => listed(c, await listDeliveries(hookCtx(c), owner(ids), ids.webhookId!, pageOf(c))),
    );
    serve(
      admin,
      w.redeliver,
      async (c, ids) => ok(c, await redeliver(hookCtx(c), owner(ids), ids.webhookId!, ids.deliveryId!)),
    );
  }
}

/** Reads: every collection lists (newest first, paged) and reads one by id. */
function reads(admin: OpenAPIHono<AppEnv>): void {
  serve(admin, r.listOrgs, async (c) => listed(c, await operatorRead.listOrgs(ctx(c), pageOf(c))));
  serve(admin, r.getOrg, async (c, { orgId }) => ok(c, await operatorRead.getOrg(ctx(c), orgId!)));
  serve(admin, r.listUsers, async (c) => listed(c, await operatorRead.listUsers(ctx(c), pageOf(c))));
  serve(admin, r.getUser, async (c, { userId }) => ok(c, await operatorRead.getUser(ctx(c), userId!)));
  serve(admin, r.listProjects, async (c) => listed(c, await operatorRead.listProjects(ctx(c), pageOf(c))));
  serve(
    admin,
    r.getProject,
    async (c, { projectId }) => ok(c, await operatorRead.getProject(ctx(c), projectId!)),
  );
  serve(
    admin,
    r.listMembers,
    async (c, { projectId }) => listed(c, await operatorRead.listMembers(ctx(c), projectId!, pageOf(c))),
  );
  serve(
    admin,
    r.getMember,
    async (c, { projectId, userId }) => ok(c, await operatorRead.getMember(ctx(c), projectId!, userId!)),
  );
  serve(
    admin,
    r.listAgents,
    async (c, { projectId }) => listed(c, await operatorRead.listAgents(ctx(c), projectId!, pageOf(c))),
  );
  serve(
    admin,
    r.getAgent,
    async (c, { projectId, agentId }) => ok(c, await operatorRead.getAgent(ctx(c), projectId!, agentId!)),
  );
  serve(
    admin,
    r.listApiKeys,
    async (c, { projectId }) => listed(c, await operatorRead.listApiKeys(ctx(c), projectId!, pageOf(c))),
  );
  serve(
    admin,
    r.getApiKey,
    async (c, { projectId, keyId }) => ok(c, await operatorRead.getApiKey(ctx(c), projectId!, keyId!)),
  );
  serve(admin, r.ledgerChain, async (c, { projectId }) => {
    const { afterSeq, limit } = exportOf(c);
    return ok(c, await chainPage(serviceCtx(c.get("deps")), projectId!, afterSeq, limit));
  });
  serve(admin, r.ledgerCheckpoints, async (c, { projectId }) => {
    const { afterSeq, limit } = exportOf(c);
    return ok(c, await operatorCheckpoints(serviceCtx(c.get("deps")), projectId!, afterSeq, limit));
  });
}

/**
 * The operator API (`/admin/*`): bearer `SVC_ADMIN_TOKEN`; off (404) when no admin token is configured.
 * Every route is an object of `./routes.ts`; the document they make is served at `GET /admin/openapi.json`.
 */
export function adminApp(): OpenAPIHono<AppEnv> {
  const admin = new OpenAPIHono<AppEnv>();
  adminAuth(admin);
  writes(admin);
  actions(admin);
  reads(admin);
  webhookRoutes(admin);
  let document: string | undefined;
  serve(admin, r.document, (c) => {
    document ??= operatorDocumentText(admin);
    return Promise.resolve(c.body(document, 200, { "Content-Type": "application/json; charset=UTF-8" }));
  });
  return admin;
}
