import type { Context } from "hono";
import type { ContentfulStatusCode, StatusCode } from "hono/utils/http-status";
import type { AppEnv } from "./env.ts";

type SuccessStatus = 200 | 201 | 202;

declare const promised: unique symbol;

/**
 * A response that promises, to the compiler only, its status `S` and its body `B` (for an envelope, the
 * `data` inside it). `handle()` accepts from a handler only the replies its route documents, so a handler
 * whose data breaks the route's response schema fails `deno check`. Distributes over a union of statuses.
 */
export type Reply<S extends number, B> = S extends number
  ? Response & { readonly [promised]: { status: S; body: B } }
  : never;

/** The one place a plain response becomes a reply: the helpers below build the body they promise. */
function reply<S extends number, B>(res: Response): Reply<S, B> {
  return res as Reply<S, B>;
}

/** Builds `meta`: `callsRemaining` on limited plans, `context` when there is something to report. */
export function buildMeta(c: Context<AppEnv>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const remaining = c.get("callsRemaining");
  if (remaining !== undefined) meta.callsRemaining = remaining;
  const context = c.get("metaContext");
  if (context && Object.keys(context).length > 0) meta.context = context;
  return { ...meta, ...extra };
}

/** A success in the envelope `{ data, meta }`. */
export function ok<D, S extends SuccessStatus = 200>(
  c: Context<AppEnv>,
  data: D,
  status?: S,
  extraMeta: Record<string, unknown> = {},
): Reply<S, D> {
  return reply(c.json({ data, meta: buildMeta(c, extraMeta) }, status ?? 200));
}

export function created<D>(c: Context<AppEnv>, data: D): Reply<201, D> {
  return ok(c, data, 201);
}

/** A text/plain answer (routes whose contract is text). */
export function textReply<S extends ContentfulStatusCode>(
  c: Context<AppEnv>,
  body: string,
  status: S,
): Reply<S, string> {
  return reply(c.text(body, status));
}

/** An answer without a body (304 and the like), with its headers. */
export function empty<S extends StatusCode>(
  c: Context<AppEnv>,
  status: S,
  headers: Record<string, string> = {},
): Reply<S, null> {
  return reply(c.body(null, status, headers));
}

/** `data` serialized once, remembering what it holds (GET /context measures it before answering). */
export type JsonText<D> = string & { readonly [promised]: D };

export function jsonText<D>(data: D): JsonText<D> {
  return JSON.stringify(data) as JsonText<D>;
}

/**
 * A success whose `data` is already serialized (GET /context measures it for `meta.responseBytes`),
 * so the large body is stringified once.
 */
export function okSerialized<D>(
  c: Context<AppEnv>,
  dataJson: JsonText<D>,
  extraMeta: Record<string, unknown> = {},
): Reply<200, D> {
  const meta = JSON.stringify(buildMeta(c, extraMeta));
  return reply(c.body(`{"data":${dataJson},"meta":${meta}}`, 200, { "Content-Type": "application/json" }));
}

/** A streamed answer (Server-Sent Events) whose body the route documents as text. */
export function streamed(res: Response): Reply<200, never> {
  return reply(res);
}
