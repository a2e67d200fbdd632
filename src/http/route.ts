import { createRoute, type OpenAPIHono, type RouteConfig, type z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { ZodError } from "zod";
import type { AgentRole } from "@/db/tables/foundation.ts";
import { authenticate } from "@/domain/auth/authenticate.ts";
import type { Scope } from "@/domain/core/scopes.ts";
import { admit } from "@/domain/auth/admit.ts";
import { metaContextOf, primeCallerSituation } from "@/domain/core/silence.ts";
import { assertLedgerFresh, judgeFreshness } from "@/domain/ledger/stale.ts";
import { chargeUnits, judgeRate, type RateState } from "@/domain/limits/rate-limit.ts";
import { type Actor, hasScope } from "@/domain/core/actor.ts";
import type { ActorCtx } from "@/domain/core/context.ts";
import type { Prefetch } from "@/domain/core/prefetch.ts";
import { DomainError, fail, recovery } from "@/domain/core/errors.ts";
import { errorBody, fieldErrors } from "./errors.ts";
import { metaContextFor } from "./meta.ts";
import { COMMON_ERRORS, errorResponses, PUBLIC_ERRORS } from "@/contracts/common.ts";
import { withExamples } from "@/contracts/examples/index.ts";
import { actorCtx, type AppEnv } from "./env.ts";
import type { Reply } from "./envelope.ts";

export interface RoutePolicy {
  /** `none`: no Authorization header (pairing, refresh, prompt). Default `bearer`. */
  auth?: "bearer" | "none";
  /** Scope the route needs; omitted when any valid token will do. */
  scope?: Scope;
  /** Roles allowed; omitted for every role. */
  roles?: AgentRole[];
  /** The refusal for a role outside `roles`, when the endpoint's spec gives its own (default `roleRefusal`). */
  refuseRole?: (actor: Actor) => DomainError;
  /** Rate-limit units (spec: light reads 1, writes 2, heavy reads and /ticket 3, ticket batch 6). */
  cost: number;
  /** Exempt from LEDGER_STALE (ledger writes). Reads are never gated. */
  staleExempt?: boolean;
  /** Error code for a malformed or invalid body instead of VALIDATION_ERROR (pairing: BAD_REQUEST). */
  invalidCode?: string;
  /**
   * Columns the handler reads anyway, read in the admission statement (one round trip less); the
   * handler finds the admission row in `c.get("prefetched")` (undefined when the general path admitted).
   */
  prefetch?: Prefetch;
}

const policies = new WeakMap<object, RoutePolicy>();

type Defined<R> = R & { "x-svc-scope"?: string; "x-svc-cost": number; "x-svc-roles"?: string[] };

/**
 * A route contract: the OpenAPI definition plus the policy (auth, scope, roles, cost) that the
 * middleware enforces. The policy is published as `x-svc-*` extensions in the document.
 */
export function defineRoute<R extends RouteConfig>(config: R, policy: RoutePolicy): Defined<R> {
  const bearer = (policy.auth ?? "bearer") === "bearer";
  const statuses: number[] = bearer ? [...COMMON_ERRORS] : [...PUBLIC_ERRORS];
  const route = {
    ...config,
    security: bearer ? [{ bearerAuth: [] }] : [],
    responses: { ...errorResponses(...statuses), ...config.responses },
    middleware: [policyMiddleware(config.method, policy)],
    "x-svc-cost": policy.cost,
    ...(policy.scope ? { "x-svc-scope": policy.scope } : {}),
    ...(policy.roles ? { "x-svc-roles": policy.roles } : {}),
  };
  const defined = createRoute(withExamples(route) as R) as unknown as Defined<R>;
  policies.set(defined, policy);
  return defined;
}

function policyMiddleware(method: string, policy: RoutePolicy): MiddlewareHandler<AppEnv> {
  const mutating = method.toLowerCase() !== "get";
  return async (c, next) => {
    if (policy.invalidCode && c.req.method !== "GET") {
      try {
        await c.req.json();
      } catch {
        throw new DomainError("invalid", policy.invalidCode, "Malformed JSON in request body");
      }
    }
    if ((policy.auth ?? "bearer") === "none") return await next();
    const deps = c.get("deps");
    const credentials = {
      bearer: bearerOf(c.req.header("authorization")),
      subAgentHeader: c.req.header("x-svc-subagent"),
    };
    const freshness = mutating && !policy.staleExempt;
    // One statement admits the call (session tokens and API keys); the general path does the rest.
    const admission = await admit(actorlessCtx(c), {
      ...credentials,
      scope: policy.scope,
      roles: policy.roles,
      cost: policy.cost,
      freshness,
      prefetch: policy.prefetch,
    });
    const actor = admission?.actor ?? await authenticate(actorlessCtx(c), credentials);
    c.set("actor", actor);
    const ctx = actorCtx(deps, actor);
    if (policy.scope && !hasScope(actor, policy.scope)) {
      throw fail.forbidden(
        `Cannot call ${method.toUpperCase()} ${c.req.routePath}: missing scope "${policy.scope}"`,
        {
          requiredScope: policy.scope,
          recovery: recovery(
            "REPAIR_OR_REFRESH",
            "POST /pair/connect",
            `Pair again with a role whose token carries "${policy.scope}", or use a key that has it`,
            { code: "<pairing code>" },
          ),
        },
      );
    }
    if (policy.roles && !policy.roles.includes(actor.role)) {
      throw policy.refuseRole ? policy.refuseRole(actor) : roleRefusal(actor.role, policy.roles);
    }
    if (admission) {
      if (!admission.counts) throw new Error("admission: a call its policy admits was not charged");
      setRateHeaders(c, judgeRate(actor.plan, admission.counts, admission.now));
      if (admission.freshness) judgeFreshness(admission.freshness, admission.now, "f_");
      primeCallerSituation(actor, admission.situation);
      const metaContext = metaContextOf(admission.situation);
      c.set("metaContext", Object.keys(metaContext).length > 0 ? metaContext : undefined);
      if (admission.prefetched) c.set("prefetched", admission.prefetched);
      return await next();
    }
    // Rate charge, LEDGER_STALE gate and meta.context are independent reads and writes: run them
    // together, then refuse in a fixed order (rate limit first).
    const [rated, fresh, metaContext] = await Promise.allSettled([
      chargeUnits(ctx, policy.cost),
      freshness ? assertLedgerFresh(ctx) : Promise.resolve(),
      metaContextFor(ctx),
    ]);
    if (rated.status === "rejected") throw rated.reason;
    setRateHeaders(c, rated.value);
    if (fresh.status === "rejected") throw fresh.reason;
    c.set("metaContext", metaContext.status === "fulfilled" ? metaContext.value : undefined);
    await next();
  };
}

function setRateHeaders(c: Context<AppEnv>, rate: RateState): void {
  c.set("callsRemaining", rate.remaining ?? undefined);
  c.header("X-RateLimit-Limit", rate.limit === null ? "unlimited" : String(rate.limit));
  if (rate.remaining !== null) c.header("X-RateLimit-Remaining", String(rate.remaining));
  c.header("X-RateLimit-Reset", String(Math.ceil(rate.resetAt.getTime() / 1000)));
  c.header("X-Burst-Remaining", String(rate.burstRemaining));
}

/** 403 for a role violation: `guidance`, and for orchestrators a hint to mint a sub-agent session. */
export function roleRefusal(actual: AgentRole, allowed: AgentRole[]) {
  const orchestrator = actual === "orchestrator";
  return fail.forbidden(`Cannot act as "${actual}": this call needs role ${allowed.join(" or ")}`, {
    guidance: orchestrator
      ? "Orchestrators coordinate and delegate: mint a generator sub-agent session and let it do this"
      : `Only ${allowed.join(" or ")} agents may do this; ask an orchestrator to delegate it`,
    requiredRole: allowed[0],
    actualRole: actual,
    ...(orchestrator
      ? {
        recovery: recovery(
          "MINT_SUBAGENT_SESSION",
          "POST /subagent/session",
          "Mint a generator sub-agent and call this with its token",
          { name: "<worker-name>", role: "generator" },
        ),
      }
      : {}),
  });
}

function actorlessCtx(c: Context<AppEnv>) {
  const deps = c.get("deps");
  return { db: deps.db, clock: deps.clock, publicUrl: deps.config.publicUrl };
}

function bearerOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match?.[1];
}

type JsonBody<R> = R extends { request: { body: { content: { "application/json": { schema: infer S } } } } }
  ? S extends z.ZodType ? z.output<S> : never
  : undefined;
type QueryOf<R> = R extends { request: { query: infer S } } ? S extends z.ZodType ? z.output<S> : never
  : undefined;
type ParamsOf<R> = R extends { request: { params: infer S } } ? S extends z.ZodType ? z.output<S> : never
  : undefined;

export interface HandlerArgs<R> {
  c: Context<AppEnv>;
  body: JsonBody<R>;
  query: QueryOf<R>;
  params: ParamsOf<R>;
}

export interface AuthedHandlerArgs<R> extends HandlerArgs<R> {
  ctx: ActorCtx;
}

interface Validated {
  valid(target: string): unknown;
}

function argsOf<R extends RouteConfig>(route: R, c: Context<AppEnv>): HandlerArgs<R> {
  const req = c.req as unknown as Validated;
  return {
    c,
    body: (route.request?.body ? req.valid("json") : undefined) as JsonBody<R>,
    query: (route.request?.query ? req.valid("query") : undefined) as QueryOf<R>,
    params: (route.request?.params ? req.valid("param") : undefined) as ParamsOf<R>,
  };
}

/** A validation hook: answers a failed validation itself, or returns undefined for the default. */
export type ValidationHook = (
  result: { success: true; data?: unknown; target?: string } | {
    success: false;
    error: ZodError;
    target?: string;
    data?: unknown;
  },
  c: Context<AppEnv>,
) => Response | undefined | Promise<Response | undefined>;

/** What a documented response carries: an envelope's `data`, another JSON body, text, or nothing. */
type BodyOf<C> = [C] extends [undefined] ? null
  :
    | (C extends { "application/json": { schema: infer S extends z.ZodType } }
      ? z.output<S> extends { data: infer D } ? D : z.output<S>
      : never)
    | (C extends { "text/plain": unknown } ? string : never);

type ContentOf<X> = X extends { content: infer C } ? C : undefined;

/** One reply per status the route literally documents (the shared error map is thrown, not returned). */
type Documented<Rs> = {
  [K in keyof Rs as number extends K ? never : K]: K extends number ? Reply<K, BodyOf<ContentOf<Rs[K]>>>
    : never;
};

/** The replies a handler of route `R` may return: its documented statuses with their schemas' types. */
export type RouteReply<R> = R extends { responses: infer Rs } ? Documented<Rs>[keyof Documented<Rs>] : never;

/**
 * Adds a route to the API. The library types a handler against its own reading of the route, which it
 * cannot resolve for a route that is still a type parameter here; `RouteReply<R>` (checked by `handle` and
 * `handlePublic` where the route is known) is the stricter check of the same contract, so the registration
 * goes through the library's untyped signature, in this one place.
 */
function register<R extends RouteConfig>(
  api: OpenAPIHono<AppEnv>,
  route: R,
  handler: (c: Context<AppEnv>) => Promise<Response>,
  hook: ValidationHook | undefined,
): void {
  const untyped = api as unknown as {
    openapi(
      route: RouteConfig,
      handler: (c: Context<AppEnv>) => Promise<Response>,
      hook?: ValidationHook,
    ): void;
  };
  untyped.openapi(route, handler, hook);
}

/**
 * Registers a route whose policy authenticates: the handler gets the validated input and the actor ctx,
 * and returns one of the replies the route documents (`ok`, `textReply`, `empty` from envelope.ts).
 * `hook` replaces the default validation answer for this route (e.g. to add a recovery).
 */
export function handle<R extends RouteConfig>(
  api: OpenAPIHono<AppEnv>,
  route: R,
  fn: (args: AuthedHandlerArgs<R>) => Promise<RouteReply<R>>,
  hook?: ValidationHook,
): void {
  register(
    api,
    route,
    (c) => fn({ ...argsOf(route, c), ctx: actorCtx(c.get("deps"), c.get("actor")) }),
    hook ?? hookFor(route),
  );
}

/** A route-specific validation hook when the policy names its own invalid-body code. */
function hookFor(route: object): ValidationHook | undefined {
  const code = policies.get(route)?.invalidCode;
  if (!code) return undefined;
  return (result, c) => {
    if (result.success) return undefined;
    return c.json(errorBody(code, "Invalid request body", { fields: fieldErrors(result.error) }), 400);
  };
}

/**
 * Registers a route without authentication (pairing, refresh, prompt). `hook` replaces the default
 * validation answer for this route (e.g. a text/plain route answers its validation failures in text).
 */
export function handlePublic<R extends RouteConfig>(
  api: OpenAPIHono<AppEnv>,
  route: R,
  fn: (args: HandlerArgs<R>) => Promise<RouteReply<R>>,
  hook?: ValidationHook,
): void {
  register(api, route, (c) => fn(argsOf(route, c)), hook ?? hookFor(route));
}
