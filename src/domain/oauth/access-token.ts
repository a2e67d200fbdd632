import { decodeProtectedHeader, jwtVerify, SignJWT } from "jose";
import type { ServiceCtx } from "@/domain/core/context.ts";
import { fail, recovery } from "@/domain/core/errors.ts";
import { ACCESS_TOKEN_TTL_S, currentSigningKey, KID_PATTERN, SIGNING_ALG, verificationKey } from "./keys.ts";

/** Longest access token accepted (bytes of the compact form); ours are about 900. */
export const MAX_ACCESS_TOKEN_BYTES = 8192;
export const ACCESS_TOKEN_TYPE = "at+jwt";
/** JOSE header parameters that point at or embed a key: never honoured, always refused. */
const HOSTILE_HEADERS = ["jwk", "jku", "x5u", "x5c", "x5t", "x5t#S256"] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export type OAuthScope = "read" | "write";

export interface IssueAccessTokenInput {
  userId: string;
  projectId: string;
  orgId: string;
  scope: OAuthScope;
  clientId: string | null;
}

/** The verified claims of an access token. */
export interface AccessClaims {
  sub: string;
  projectId: string;
  orgId: string;
  scope: OAuthScope;
  clientId: string | null;
  jti: string;
  /** Unix seconds. */
  iat: number;
  exp: number;
}

/** `{auth_url}` (issuer) and `{mcp_url}` (audience) derived from PUBLIC_URL. */
export function issuerOf(publicUrl: string): string {
  return publicUrl.replace(/\/+$/, "");
}
export function audienceOf(publicUrl: string): string {
  return `${issuerOf(publicUrl)}/mcp`;
}

/**
 * A 1-hour access token (RFC 9068 profile): header `alg: RS256`, `typ: at+jwt`, `kid`; claims `sub` (user),
 * `projectId`, `orgId`, `scope`, `client_id` (omitted for a loopback client without one), `iss`, `aud`,
 * `iat`, `exp`, `jti`. Signed with the current key (created on first need).
 */
export async function issueAccessToken(
  ctx: ServiceCtx,
  input: IssueAccessTokenInput,
): Promise<{ accessToken: string; expiresIn: number; scope: string }> {
  const { kid, key } = await currentSigningKey(ctx);
  const iat = Math.floor(ctx.clock.now().getTime() / 1000);
  const accessToken = await new SignJWT({
    projectId: input.projectId,
    orgId: input.orgId,
    scope: input.scope,
    ...(input.clientId !== null ? { client_id: input.clientId } : {}),
  })
    .setProtectedHeader({ alg: SIGNING_ALG, typ: ACCESS_TOKEN_TYPE, kid })
    .setSubject(input.userId)
    .setIssuer(issuerOf(ctx.publicUrl))
    .setAudience(audienceOf(ctx.publicUrl))
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_S)
    .setJti(crypto.randomUUID())
    .sign(key);
  return { accessToken, expiresIn: ACCESS_TOKEN_TTL_S, scope: input.scope };
}

/** The one refusal for an access token that does not verify, whatever the reason. */
export function accessTokenRejected() {
  return fail.unauthorized("Invalid, expired or revoked access token", {
    recovery: recovery(
      "REPAIR_OR_REFRESH",
      "POST /api/oauth/token",
      "Refresh the access token with your refresh token (grant_type=refresh_token), or connect again " +
        "through GET /oauth/authorize",
      { grant_type: "refresh_token", refresh_token: "<your refresh token>", client_id: "<your client_id>" },
    ),
  });
}

/** True when `token` has the shape of a compact JWS (three base64url segments). */
export function looksLikeJwt(token: string): boolean {
  return token.length <= MAX_ACCESS_TOKEN_BYTES && JWT_SHAPE.test(token);
}

/**
 * Verifies an access token locally (keys from the database, never a network fetch) and returns its
 * claims. Refuses with the one 401: oversized or malformed (segment count), `alg` other than RS256
 * (`none`, HS256 keyed with the public key...), a `typ` other than `at+jwt`, embedded or referenced keys
 * (`jwk`, `jku`, `x5u`, `x5c`...), an unknown, retired-and-expired or hostile `kid`, a bad signature,
 * wrong `iss` or `aud`, expired, `nbf` or `iat` in the future, and claims of the wrong type. Time is the
 * service clock.
 */
export async function verifyAccessToken(ctx: ServiceCtx, token: string): Promise<AccessClaims> {
  if (new TextEncoder().encode(token).length > MAX_ACCESS_TOKEN_BYTES) throw accessTokenRejected();
  if (token.split(".").length !== 3 || !JWT_SHAPE.test(token)) throw accessTokenRejected();
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(token) as Record<string, unknown>;
  } catch {
    throw accessTokenRejected();
  }
  if (header.alg !== SIGNING_ALG || header.typ !== ACCESS_TOKEN_TYPE) throw accessTokenRejected();
  if (HOSTILE_HEADERS.some((name) => Object.hasOwn(header, name))) throw accessTokenRejected();
  const kid = header.kid;
  if (typeof kid !== "string" || !KID_PATTERN.test(kid)) throw accessTokenRejected();
  const key = await verificationKey(ctx, kid);
  if (!key) throw accessTokenRejected();
  let payload: Record<string, unknown>;
  try {
    const result = await jwtVerify(token, key, {
      algorithms: [SIGNING_ALG],
      typ: ACCESS_TOKEN_TYPE,
      issuer: issuerOf(ctx.publicUrl),
      audience: audienceOf(ctx.publicUrl),
      currentDate: ctx.clock.now(),
      maxTokenAge: ACCESS_TOKEN_TTL_S,
      requiredClaims: ["sub", "iss", "aud", "iat", "exp", "jti"],
    });
    payload = result.payload as Record<string, unknown>;
  } catch {
    throw accessTokenRejected();
  }
  const { sub, projectId, orgId, scope, client_id: clientId, jti, iat, exp } = payload;
  if (
    typeof sub !== "string" || !UUID.test(sub) ||
    typeof projectId !== "string" || !UUID.test(projectId) ||
    typeof orgId !== "string" || !UUID.test(orgId) ||
    (scope !== "read" && scope !== "write") ||
    (clientId !== undefined && clientId !== null && typeof clientId !== "string") ||
    typeof jti !== "string" || !UUID.test(jti) ||
    typeof iat !== "number" || typeof exp !== "number" || exp - iat > ACCESS_TOKEN_TTL_S
  ) {
    throw accessTokenRejected();
  }
  return {
    sub: sub.toLowerCase(),
    projectId: projectId.toLowerCase(),
    orgId: orgId.toLowerCase(),
    scope,
    clientId: typeof clientId === "string" ? clientId : null,
    jti: jti.toLowerCase(),
    iat,
    exp,
  };
}
