import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "@/http/env.ts";
import { errorBody, fieldErrors } from "@/http/errors.ts";
import { ok } from "@/http/envelope.ts";
import { timingSafeEqual } from "@/domain/shared/crypto.ts";
import { DomainError } from "@/domain/shared/errors.ts";
import * as operator from "@/domain/operator/operator.ts";

const Plan = z.enum(["free", "builder", "growth", "team", "enterprise"]);
const ReviewMode = z.enum(["light", "medium", "strict", "auto", "custom"]);
const Role = z.enum(["generator", "evaluator", "observer", "orchestrator"]);
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
  orgPatch: z.object({ plan: Plan.optional(), status: z.enum(["active", "suspended"]).optional() })
    .refine((v) => v.plan !== undefined || v.status !== undefined, "Provide plan or status"),
  user: z.object({
    email: z.string().email(),
    password: z.string().min(8).max(200),
    name: z.string().min(1).max(200),
  }),
  project: z.object({
    orgId: z.string().uuid(),
    name: z.string().min(1).max(200),
    ticketPrefix: z.string().regex(/^[A-Z]{2,10}$/, "2 to 10 upper-case letters"),
    reviewMode: ReviewMode.optional(),
    password: z.string().min(1).max(200).optional(),
    settings: Settings.optional(),
  }),
  projectPatch: z.object({
    name: z.string().min(1).max(200).optional(),
    reviewMode: ReviewMode.optional(),
    password: z.string().max(200).nullable().optional(),
    settings: Settings.optional(),
    status: z.enum(["active", "archived"]).optional(),
  }),
  member: z.object({ userId: z.string().uuid(), role: z.enum(["admin", "member", "viewer"]) }),
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
};

async function parse<T extends z.ZodType>(schema: T, req: { text(): Promise<string> }): Promise<z.output<T>> {
  let raw: unknown;
  try {
    const text = await req.text();
    raw = text ? JSON.parse(text) : {};
  } catch {
    throw new DomainError(400, "VALIDATION_ERROR", "Malformed JSON in request body", { fields: [] });
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    throw new DomainError(400, "VALIDATION_ERROR", "Validation failed", {
      fields: fieldErrors(result.error),
    });
  }
  return result.data;
}

/** The operator API (`/admin/*`): bearer `SVC_ADMIN_TOKEN`; off (404) when no admin token is configured. */
export function adminApp(): Hono<AppEnv> {
  const admin = new Hono<AppEnv>();
  admin.use("*", async (c, next) => {
    const expected = c.get("deps").config.adminToken;
    if (!expected) return c.json(errorBody("NOT_FOUND", "The operator API is off"), 404);
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
    async (c) =>
      ok(c, await operator.updateOrg(ctx(c), c.req.param("orgId"), await parse(schemas.orgPatch, c.req))),
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
    async (c) =>
      ok(
        c,
        await operator.updateProject(
          ctx(c),
          c.req.param("projectId"),
          await parse(schemas.projectPatch, c.req),
        ),
      ),
  );
  admin.post(
    "/projects/:projectId/members",
    async (c) =>
      ok(
        c,
        await operator.addMember(ctx(c), c.req.param("projectId"), await parse(schemas.member, c.req)),
        201,
      ),
  );
  admin.post("/projects/:projectId/pairing-codes", async (c) =>
    ok(
      c,
      await operator.createAdminPairingCode(
        ctx(c),
        c.req.param("projectId"),
        await parse(schemas.code, c.req),
      ),
      201,
    ));
  admin.post(
    "/projects/:projectId/api-keys",
    async (c) =>
      ok(
        c,
        await operator.createApiKey(ctx(c), c.req.param("projectId"), await parse(schemas.apiKey, c.req)),
        201,
      ),
  );
  admin.post("/clock", async (c) => {
    if (!c.get("deps").config.testClock) return c.json(errorBody("NOT_FOUND", "The test clock is off"), 404);
    const { advanceMs } = await parse(schemas.clock, c.req);
    return ok(c, { now: c.get("deps").clock.advance(advanceMs).toISOString() });
  });
  return admin;
}
