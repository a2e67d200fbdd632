/**
 * OAuth endpoints as route contracts, like REST's `defineRoute`: one object per endpoint carries the
 * OpenAPI definition (published as it is) and is what the endpoint is registered from, and its request
 * schema is what the parameters are validated with. Unlike REST, failures answer in OAuth's shape
 * (RFC 6749 section 5.2, `{ error, error_description }`): the caller names the error a failed validation
 * becomes (`invalid_request`, or `invalid_client_metadata` for registration).
 */
import { createRoute, type OpenAPIHono, type RouteConfig, type z } from "@hono/zod-openapi";
import type { Context, Hono } from "hono";
import { withExamples } from "@/contracts/examples/index.ts";
import { OAuthError } from "@/domain/oauth/errors.ts";
import type { AppEnv } from "./env.ts";

type OpenAPIRegistry = OpenAPIHono<AppEnv>["openAPIRegistry"];

/** An OAuth endpoint's contract: published in the document, free of the REST policy (cost 0, no bearer). */
export type OAuthRoute<R extends RouteConfig = RouteConfig> = R & { "x-svc-cost": 0 };

export function defineOAuthRoute<R extends RouteConfig>(config: R & { "x-svc-cost": 0 }): OAuthRoute<R> {
  return createRoute(withExamples(config) as R & { "x-svc-cost": 0 });
}

/** Publishes the routes in the OpenAPI document, exactly as defined. */
export function documentOAuthRoutes(registry: OpenAPIRegistry, routes: readonly RouteConfig[]): void {
  for (const route of routes) {
    registry.registerPath(route as Parameters<OpenAPIRegistry["registerPath"]>[0]);
  }
}

/** The app's registration method of a route (`app.get`, `app.post`): the path is the route's template. */
export function pathOf(route: RouteConfig): string {
  return route.path.replaceAll(/\/{(.+?)}/g, "/:$1");
}

type BodySchemaOf<R> = R extends { request: { body: { content: infer C } } }
  ? C[keyof C] extends { schema: infer S extends z.ZodType } ? S : never
  : never;

/** The route's request body schema (its first media type's): what its parameters are validated with. */
function bodySchemaOf<R extends RouteConfig>(route: R): BodySchemaOf<R> {
  const content = route.request?.body?.content ?? {};
  const media = Object.values(content)[0];
  const schema = (media && "schema" in media ? media.schema : undefined) as BodySchemaOf<R> | undefined;
  if (!schema) throw new Error(`validatedBody: ${route.method} ${route.path} documents no body schema`);
  return schema;
}

/**
 * The route's request body schema applied to the parameters as received (JSON or form). A JSON `null`
 * reads as an absent parameter, as OAuth parameters have no null. A failure is an `OAuthError` named
 * `error`: "Missing parameter X" for an absent required one, "Parameter X must be ..." otherwise.
 */
export function validatedBody<R extends RouteConfig>(
  route: R,
  params: Record<string, unknown>,
  error: string,
): z.output<BodySchemaOf<R>> {
  const present = Object.fromEntries(Object.entries(params).filter(([, value]) => value !== null));
  return parsedBody(route, present, (issues) => {
    const issue = issues[0];
    const name = issue?.path.join(".") || "body";
    const missing = issue?.path.length === 1 && present[String(issue.path[0])] === undefined;
    const notString = issue?.code === "invalid_type" && "expected" in issue && issue.expected === "string";
    const description = missing
      ? `Missing parameter ${name}`
      : notString
      ? `Parameter ${name} must be a string`
      : `Parameter ${name}: ${issue?.message ?? "invalid"}`;
    return new OAuthError(error, description, 400);
  });
}

/**
 * The route's request body schema applied to `body` as it is (a `null` stays a `null`); a failure is the
 * `OAuthError` that `refuse` makes of the schema's issues (in the schema's order, at least one).
 */
export function parsedBody<R extends RouteConfig>(
  route: R,
  body: unknown,
  refuse: (issues: readonly z.core.$ZodIssue[]) => OAuthError,
): z.output<BodySchemaOf<R>> {
  const result = bodySchemaOf(route).safeParse(body);
  if (result.success) return result.data as z.output<BodySchemaOf<R>>;
  throw refuse(result.error.issues);
}

/** Mounts `handler` for the route on a plain app at the route's own method and path. */
export function mountOAuthRoute(
  app: Hono<AppEnv>,
  route: RouteConfig,
  handler: (c: Context<AppEnv>) => Promise<Response>,
): void {
  app.on(route.method.toUpperCase(), [pathOf(route)], handler);
}
