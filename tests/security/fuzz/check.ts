// deno-lint-ignore-file no-explicit-any
import type { Contract, Operation } from "./spec.ts";

export interface Received {
  status: number;
  headers: Headers;
  contentType: string;
  text: string;
  json: unknown;
}

/**
 * The properties every answer must have: no 5xx; an `X-Request-Id` (and `Retry-After` on 429); a status
 * the document declares for the operation; a
 * documented content type; JSON in the spec's envelope (`{ data, meta }` on success,
 * `{ error: { code, message, details? } }` on error); and a body valid against the documented schema.
 */
export function violations(contract: Contract, op: Operation, res: Received): string[] {
  const out: string[] = [];
  if (res.status >= 500) out.push(`${res.status} server error: ${res.text.slice(0, 300)}`);
  if (!res.headers.get("x-request-id")) out.push("no X-Request-Id header");
  if (res.status === 429 && !res.headers.get("retry-after")) out.push("429 without Retry-After");
  const documented = op.responses[String(res.status)];
  if (!documented) {
    out.push(`status ${res.status} is not documented for ${op.id}`);
    return out;
  }
  const types = Object.keys(documented);
  if (types.length === 0) return out;
  if (!types.includes(res.contentType)) {
    out.push(`content type "${res.contentType}" is not documented for ${res.status} (${types.join(", ")})`);
    return out;
  }
  if (res.contentType !== "application/json") return out;
  if (res.json === undefined) {
    out.push(`body is not JSON: ${res.text.slice(0, 200)}`);
    return out;
  }
  const body = res.json as any;
  if (!body || typeof body !== "object" || Array.isArray(body)) out.push("body is not a JSON object");
  else if (res.status < 400) {
    const keys = Object.keys(body).sort().join(",");
    if (keys !== "data,meta") out.push(`success envelope has keys {${keys}}, expected {data, meta}`);
    if (!body.meta || typeof body.meta !== "object" || Array.isArray(body.meta)) {
      out.push("meta is not an object");
    }
  } else {
    const keys = Object.keys(body).join(",");
    if (keys !== "error") out.push(`error envelope has keys {${keys}}, expected {error}`);
    const e = body.error;
    if (!e || typeof e !== "object") out.push("error is not an object");
    else {
      if (typeof e.code !== "string" || !e.code) out.push("error.code is not a string");
      if (typeof e.message !== "string") out.push("error.message is not a string");
      const extra = Object.keys(e).filter((k) => !["code", "message", "details"].includes(k));
      if (extra.length) out.push(`error has extra keys ${extra.join(",")}`);
      if (
        "details" in e && (e.details === null || typeof e.details !== "object" || Array.isArray(e.details))
      ) {
        out.push("error.details is present but not an object");
      }
    }
  }
  const schemaErrors = contract.validate(op, res.status, res.contentType, body);
  if (schemaErrors) out.push(`schema: ${schemaErrors.join("; ")}`);
  return out;
}
