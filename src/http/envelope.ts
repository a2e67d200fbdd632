import type { Context } from "hono";
import type { AppEnv } from "./env.ts";

type SuccessStatus = 200 | 201;

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
export function ok(c: Context<AppEnv>, data: unknown, status: SuccessStatus = 200, extraMeta = {}): Response {
  return c.json({ data, meta: buildMeta(c, extraMeta) }, status);
}

export function created(c: Context<AppEnv>, data: unknown): Response {
  return ok(c, data, 201);
}

/**
 * A success whose `data` is already serialized (GET /context measures it for `meta.responseBytes`),
 * so the large body is stringified once.
 */
export function okSerialized(
  c: Context<AppEnv>,
  dataJson: string,
  extraMeta: Record<string, unknown> = {},
): Response {
  const meta = JSON.stringify(buildMeta(c, extraMeta));
  return c.body(`{"data":${dataJson},"meta":${meta}}`, 200, { "Content-Type": "application/json" });
}
