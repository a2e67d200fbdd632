/**
 * The typed REST client: `openapi-fetch` over the types that `deno task gen` writes to schema.ts.
 * Usage: `const api = createSvcClient({ baseUrl: "http://localhost:8787/api", token })`,
 * then `await api.GET("/me")` or `await api.POST("/pair/connect", { body: { code } })`.
 */
// Self-contained on purpose: other projects import this file without this project's import map.
// deno-lint-ignore no-import-prefix
import createClient, { type Client } from "npm:openapi-fetch@0.17.0";
import type { components, paths } from "./schema.ts";

export type { components, paths };
export type SvcClient = Client<paths>;

export interface SvcClientOptions {
  /** `{origin}/api` */
  baseUrl: string;
  /** Session, sub-agent, API-key or OAuth bearer token. */
  token?: string;
  /** Custom fetch (tests pass the in-process app). */
  fetch?: (request: Request) => Promise<Response>;
}

export function createSvcClient(options: SvcClientOptions): SvcClient {
  return createClient<paths>({
    baseUrl: options.baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    headers: options.token ? { Authorization: `Bearer ${options.token}` } : {},
  });
}
