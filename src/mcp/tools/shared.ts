/**
 * What the tool modules share: picking fields out of route contracts (also refined ones), relaying a REST
 * reply as a tool outcome, and the annotation sets.
 */
import type { z } from "@hono/zod-openapi";
import type { RestCall, RestReply, ToolAnnotations, ToolOutcome } from "../types.ts";

/**
 * The named fields of a contract's shape, unchanged. Zod refuses `.pick()` on objects that carry
 * refinements (most request bodies do), so tools take the field schemas themselves and the route's own
 * refinements stay where they belong: on the REST side, which answers them.
 */
export function fieldsOf<S extends z.ZodRawShape, K extends keyof S & string>(
  schema: { shape: S },
  ...keys: K[]
): Pick<S, K> {
  const out = {} as Pick<S, K>;
  for (const key of keys) out[key] = schema.shape[key];
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The upstream error object of a failed reply, unchanged (MCP-010). */
export function failure(reply: RestReply): ToolOutcome {
  const body = isObject(reply.body) ? reply.body : {};
  const error = isObject(body.error)
    ? body.error
    : { code: "UPSTREAM_ERROR", message: `REST answered HTTP ${reply.status} without an error object` };
  return { ok: false, status: reply.status, error };
}

export function succeeded(reply: RestReply): boolean {
  return reply.status >= 200 && reply.status < 300;
}

/** The REST `data` of a reply (MCP-009), or its error; `reshape` turns the data into the tool's output. */
export function relay(reply: RestReply, reshape: (data: unknown) => unknown = (data) => data): ToolOutcome {
  if (!succeeded(reply)) return failure(reply);
  const body = isObject(reply.body) ? reply.body : {};
  return { ok: true, data: reshape(body.data) };
}

/** Tools that change nothing but read (the "none" rows of the spec's table). */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Writes that only add (a ticket, a sprint, a ledger entry): a repeat adds again. */
export const ADDITIVE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

/** Writes that change or replace existing state (status, assignee, brief fields, sprint membership). */
export function updating(idempotent: boolean): ToolAnnotations {
  return { readOnlyHint: false, destructiveHint: true, idempotentHint: idempotent, openWorldHint: false };
}

/** What a tool needs of a REST route's contract (a `defineRoute` object): its method and path template. */
export interface RouteRef {
  method: string;
  path: string;
}

/** The input of one call: the template's path parameters, the query and the JSON body. */
export interface RouteInput {
  params?: Record<string, string>;
  query?: RestCall["query"];
  body?: unknown;
}

/**
 * One REST call of a route object: the method is the route's, and the path is its template with every
 * `{name}` replaced by the encoded parameter (a tool refers to the route, never to a path string).
 */
export function callOf(route: RouteRef, input: RouteInput = {}): RestCall {
  const path = route.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) => {
    const value = input.params?.[name];
    if (value === undefined) throw new Error(`callOf: ${route.path} needs the parameter "${name}"`);
    return encodeURIComponent(value);
  });
  const call: RestCall = { method: route.method.toUpperCase() as RestCall["method"], path };
  if (input.query !== undefined) call.query = input.query;
  if (input.body !== undefined) call.body = input.body;
  return call;
}
