import type { ServiceCtx } from "@/domain/core/context.ts";
import { hitCounter } from "@/domain/core/counters.ts";
import { randomSecret } from "@/domain/core/crypto.ts";
import { toJson } from "@/db/tables/types.ts";
import { checkRedirectUri } from "./redirect-uri.ts";
import { OAuthError } from "./errors.ts";

export const MAX_REDIRECT_URIS = 10;
export const MAX_CLIENT_NAME = 100;
/** Registrations per client address: 20 in 10 minutes (design; the spec only says "rate limited per IP"). */
export const REGISTER_LIMIT = 20;
export const REGISTER_WINDOW_MS = 10 * 60_000;

export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  redirect_uris: string[];
  grant_types: ["authorization_code", "refresh_token"];
  response_types: ["code"];
  token_endpoint_auth_method: "none";
  scope: "read write";
}

/** Registration metadata as the route's schema reads it (the fields the domain uses). */
export interface ClientMetadata {
  redirect_uris: string[];
  client_name?: string | undefined;
}

/**
 * Dynamic client registration (RFC 7591), public clients only. `body` is the parsed JSON (anything);
 * every refusal is an OAuthError. Counts one hit per client address before anything else, so a refused
 * body counts too; then the body must be an object whose `redirect_uris` pass `checkRedirectUris`, and
 * then `validate` (the route's schema) reads the rest of the metadata.
 */
export async function registerClient(
  ctx: ServiceCtx,
  address: string,
  body: unknown,
  validate: (meta: Record<string, unknown>) => ClientMetadata,
): Promise<RegisteredClient> {
  const now = ctx.clock.now();
  const hit = await hitCounter(ctx.db, `oauth_register:${address}`, REGISTER_WINDOW_MS, now);
  if (hit.count > REGISTER_LIMIT) {
    const retry = Math.max(1, Math.ceil((hit.resetAt.getTime() - now.getTime()) / 1000));
    throw new OAuthError("slow_down", "Too many client registrations from this address", 429, retry);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new OAuthError("invalid_client_metadata", "The body must be a JSON object");
  }
  checkRedirectUris((body as Record<string, unknown>).redirect_uris);
  const meta = validate(body as Record<string, unknown>);
  const rawName = meta.client_name;
  // deno-lint-ignore no-control-regex
  const cleaned = (rawName ?? "").replace(/[\u0000-\u001f\u007f]/g, " ").trim();
  const name = Array.from(cleaned.toWellFormed()).slice(0, MAX_CLIENT_NAME).join("") || "Unnamed client";
  const redirectUris = [...new Set(meta.redirect_uris)];
  const clientId = `svc_client_${randomSecret(18)}`;
  await ctx.db.insertInto("oauth_clients").values({
    client_id: clientId,
    client_name: name,
    redirect_uris: toJson(redirectUris),
    created_at: now,
  }).execute();
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    scope: "read write",
  };
}

/** Refuses `redirect_uris` unless an array of 1 to 10 strings, each a redirect URI registration accepts. */
export function checkRedirectUris(uris: unknown): void {
  if (!Array.isArray(uris) || uris.length < 1 || uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError(
      "invalid_redirect_uri",
      `redirect_uris must be an array of 1 to ${MAX_REDIRECT_URIS} URIs`,
    );
  }
  for (const [i, uri] of uris.entries()) {
    if (typeof uri !== "string") {
      throw new OAuthError("invalid_redirect_uri", `redirect_uris[${i}] is not a string`);
    }
    const check = checkRedirectUri(uri);
    if (!check.ok) throw new OAuthError("invalid_redirect_uri", `redirect_uris[${i}]: ${check.reason}`);
  }
}

/** A registered client, or null. */
export async function findClient(
  ctx: ServiceCtx,
  clientId: string,
): Promise<{ clientId: string; name: string; redirectUris: string[] } | null> {
  const row = await ctx.db.selectFrom("oauth_clients").selectAll().where("client_id", "=", clientId)
    .executeTakeFirst();
  if (!row) return null;
  return { clientId: row.client_id, name: row.client_name, redirectUris: row.redirect_uris };
}
