import { audienceOf, issuerOf } from "./access-token.ts";

/**
 * RFC 8707: whether every `resource` indicator names this service's protected resource, the tool server
 * `{mcp_url}` (what the protected resource metadata advertises, the tokens' `aud`), with or without a
 * trailing slash, or the service's origin `{auth_url}`. None sent is fine (the default resource).
 */
export function isOwnResource(publicUrl: string, resources: readonly string[]): boolean {
  const mcp = audienceOf(publicUrl);
  const origin = issuerOf(publicUrl);
  const own = new Set([mcp, `${mcp}/`, origin, `${origin}/`]);
  return resources.every((r) => own.has(r));
}
