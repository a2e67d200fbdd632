import { type Context, Hono } from "hono";
import { MEMBER_ROLES, ORG_STATUSES, PLANS, PROJECT_STATUSES } from "@/shared/vocabulary.ts";
import { z } from "zod";
import { AgentRoleSchema, ReviewModeSchema } from "@/contracts/common.ts";
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

/**
 * An id as PostgreSQL's uuid type reads it in canonical form (any version). Anything else is malformed
 * (`400 VALIDATION_ERROR`); a well-formed id that names nothing is `404` (operator contract).
 */
const ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const Id = z.string().regex(ID_PATTERN, "Expected an id (UUID)").transform((v) => v.toLowerCase());

const Plan = z.enum(PLANS);
const Role = AgentRoleSchema;
const Settings = z.object({
  requireType: z.boolean().optional(),
  allowedTypes: z.array(z.string().min(1).max(50)).optional(),
  requireDescription: z.boolean().optional(),
  columns: z.array(z.string().min(1).max(30)).min(2).optional(),
  threadsEnabled: z.boolean().optional(),
  ledgerStaleMinutes: z.number().int().min(1).max(1440).optional(),
}).passthrough();

const schemas = {
  org: z.object({ name: z.string().min(1).max(200), plan: Plan.optional() }),
  orgPatch: z.object({ plan: Plan.optional(), status: z.enum(ORG_STATUSES).optional() })
    .refine((v) => v.plan !== undefined || v.status !== undefined, "Provide plan or status"),
  user: z.object({
    email: z.string().email(),
    password: z.string().min(8).max(200),
    name: z.string().min(1).max(200),
  }),
  project: z.object({
    orgId: Id,
    name: z.string().min(1).max(200),
    ticketPrefix: z.string().regex(/^[A-Z]{2,10}$/, "2 to 10 upper-case letters"),
    reviewMode: ReviewModeSchema.optional(),
    password: z.string().min(1).max(200).optional(),
    settings: Settings.optional(),
  }),
  projectPatch: z.object({
    name: z.string().min(1).max(200).optional(),
    reviewMode: ReviewModeSchema.optional(),
    password: z.string().max(200).nullable().optional(),
    settings: Settings.optional(),
    status: z.enum(PROJECT_STATUSES).optional(),
  }),
  member: z.object({ userId: Id, role: z.enum(MEMBER_ROLES) }),
  code: z.object({
    agentName: z.string().min(1).max(64).optional(),
    role: Role.optional(),
    platform: z.string().min(1).max(64).optional(),
    model: z.string().min(1).max(64).optional(),
  }),
  apiKey: z.object({
    name: z.string().min(1).max(100).optional(),
    agentName: z.string().min(1).max(64),
    role: Role.optional(),
    scopes: z.array(z.string()).optional(),
  }),
  clock: z.object({ advanceMs: z.number().int().min(0) }),
  page: z.object({
    limit: z.string().regex(/^\d+$/, "An integer from 1 to 100").transform(Number)
      .pipe(z.number().int().min(1).max(100)).optional(),
    cursor: z.string().min(1).max(300).optional(),
  }),
};

/** `limit` (1 to 100, default 50) and `cursor` of a list; 400 VALIDATION_ERROR otherwise. */
function pageOf(c: AdminContext): operatorRead.Page {
  const result = schemas.page.safeParse(c.req.query());
  if (!result.success) {
    throw new DomainError("invalid", "VALIDATION_ERROR", "Validation failed", {
      fields: fieldErrors(result.error),
    });
  }
  return { limit: result.data.limit ?? 50, cursor: result.data.cursor };
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

/** The operator API (`/admin/*`): bearer `SVC_ADMIN_TOKEN`; off (404) when no admin token is configured. */
export function adminApp(): Hono<AppEnv> {
  const admin = new Hono<AppEnv>();
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
  const ctx = (c: { get(k: "deps"): AppEnv["Variables"]["deps"] }) => ({
    db: c.get("deps").db,
    clock: c.get("deps").clock,
  });

  admin.post(
    "/orgs",
    async (c) => ok(c, await operator.createOrg(ctx(c), await parse(schemas.org, c.req)), 201),
  );
  admin.patch(
    "/orgs/:orgId",
    withIds(async (c, { orgId }) =>
      ok(c, await operator.updateOrg(ctx(c), orgId!, await parse(schemas.orgPatch, c.req)))
    ),
  );
  admin.post(
    "/users",
    async (c) => ok(c, await operator.createUser(ctx(c), await parse(schemas.user, c.req)), 201),
  );
  admin.post(
    "/projects",
    async (c) => ok(c, await operator.createProject(ctx(c), await parse(schemas.project, c.req)), 201),
  );
  admin.patch(
    "/projects/:projectId",
    withIds(async (c, { projectId }) =>
      ok(c, await operator.updateProject(ctx(c), projectId!, await parse(schemas.projectPatch, c.req)))
    ),
  );
  admin.post(
    "/projects/:projectId/members",
    withIds(async (c, { projectId }) =>
      ok(c, await operator.addMember(ctx(c), projectId!, await parse(schemas.member, c.req)), 201)
    ),
  );
  admin.post(
    "/projects/:projectId/pairing-codes",
    withIds(async (c, { projectId }) =>
      ok(
        c,
        await operator.createAdminPairingCode(ctx(c), projectId!, await parse(schemas.code, c.req)),
        201,
      )
    ),
  );
  admin.post(
    "/projects/:projectId/api-keys",
    withIds(async (c, { projectId }) =>
      ok(c, await operator.createApiKey(ctx(c), projectId!, await parse(schemas.apiKey, c.req)), 201)
    ),
  );

  // Undo: revoke a key or an agent, end a session, remove a member (see domain/operator/revoke.ts).
  admin.delete(
    "/projects/:projectId/api-keys/:keyId",
    withIds(async (c, { projectId, keyId }) =>
      ok(c, await operatorRevoke.revokeApiKey(ctx(c), projectId!, keyId!))
    ),
  );
  admin.post(
    "/projects/:projectId/agents/:agentId/revoke",
    withIds(async (c, { projectId, agentId }) =>
      ok(c, await operatorRevoke.revokeAgent(ctx(c), projectId!, agentId!))
    ),
  );
  admin.delete(
    "/sessions/:sessionId",
    withIds(async (c, { sessionId }) => ok(c, await operatorRevoke.endSession(ctx(c), sessionId!))),
  );
  admin.delete(
    "/projects/:projectId/members/:userId",
    withIds(async (c, { projectId, userId }) =>
      ok(c, await operatorRevoke.removeMember(ctx(c), projectId!, userId!))
    ),
  );

  // Reads: every collection lists (newest first, paged) and reads one by id.
  admin.get("/orgs", async (c) => listed(c, await operatorRead.listOrgs(ctx(c), pageOf(c))));
  admin.get(
    "/orgs/:orgId",
    withIds(async (c, { orgId }) => ok(c, await operatorRead.getOrg(ctx(c), orgId!))),
  );
  admin.get("/users", async (c) => listed(c, await operatorRead.listUsers(ctx(c), pageOf(c))));
  admin.get(
    "/users/:userId",
    withIds(async (c, { userId }) => ok(c, await operatorRead.getUser(ctx(c), userId!))),
  );
  admin.get("/projects", async (c) => listed(c, await operatorRead.listProjects(ctx(c), pageOf(c))));
  admin.get(
    "/projects/:projectId",
    withIds(async (c, { projectId }) => ok(c, await operatorRead.getProject(ctx(c), projectId!))),
  );
  admin.get(
    "/projects/:projectId/members",
    withIds(async (c, { projectId }) =>
      listed(c, await operatorRead.listMembers(ctx(c), projectId!, pageOf(c)))
    ),
  );
  admin.get(
    "/projects/:projectId/members/:userId",
    withIds(async (c, { projectId, userId }) =>
      ok(c, await operatorRead.getMember(ctx(c), projectId!, userId!))
    ),
  );
  admin.get(
    "/projects/:projectId/agents",
    withIds(async (c, { projectId }) =>
      listed(c, await operatorRead.listAgents(ctx(c), projectId!, pageOf(c)))
    ),
  );
  admin.get(
    "/projects/:projectId/agents/:agentId",
    withIds(async (c, { projectId, agentId }) =>
      ok(c, await operatorRead.getAgent(ctx(c), projectId!, agentId!))
    ),
  );
  admin.get(
    "/projects/:projectId/api-keys",
    withIds(async (c, { projectId }) =>
      listed(c, await operatorRead.listApiKeys(ctx(c), projectId!, pageOf(c)))
    ),
  );
  admin.get(
    "/projects/:projectId/api-keys/:keyId",
    withIds(async (c, { projectId, keyId }) =>
      ok(c, await operatorRead.getApiKey(ctx(c), projectId!, keyId!))
    ),
  );

  // A new OAuth signing key signs from now on; older keys keep verifying until their tokens expire.
  admin.post(
    "/keys/rotate",
    async (c) => ok(c, await rotateSigningKey({ ...ctx(c), publicUrl: c.get("deps").config.publicUrl }), 201),
  );

  admin.post("/clock", async (c) => {
    const deps = c.get("deps");
    if (!deps.config.testClock) return c.json(errorBody("NOT_FOUND", "The test clock is off"), 404);
    const { advanceMs } = await parse(schemas.clock, c.req);
    // The offset lives in the database: every instance on it moves with this one.
    return ok(c, { now: (await advanceTestClock(deps.db, deps.clock, advanceMs)).toISOString() });
  });
  return admin;
}
