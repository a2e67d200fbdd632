import { timingSafeEqual } from "node:crypto";
import type { DbOrTrx } from "@/db/database.ts";
import { hashToken, randomSecret } from "@/domain/core/crypto.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import { audienceOf, issueAccessToken, verifyAccessToken } from "./access-token.ts";
import { OAuthError } from "./errors.ts";
import { isLoopbackRedirect, redirectMatches } from "./redirect-uri.ts";
import { isOwnResource } from "./resource.ts";

/** Refresh tokens: `svc_rt_` + 32 random bytes (base64url); a family lives 30 days from its start. */
export const REFRESH_TOKEN_PREFIX = "svc_rt_";
export const REFRESH_FAMILY_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** RFC 7636: a verifier is 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** Token-endpoint parameters as received (JSON or form), unvalidated. */
export type TokenParams = Record<string, unknown>;

function invalidRequest(description: string): OAuthError {
  return new OAuthError("invalid_request", description, 400);
}

function invalidGrant(description: string): OAuthError {
  return new OAuthError("invalid_grant", description, 400);
}

/** A parameter as a string: absent is undefined; present but not a string is `invalid_request`. */
function param(params: TokenParams, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw invalidRequest(`Parameter ${name} must be a string`);
  return value;
}

function required(params: TokenParams, name: string): string {
  const value = param(params, name);
  if (value === undefined || value === "") throw invalidRequest(`Missing parameter ${name}`);
  return value;
}

function base64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** PKCE S256: BASE64URL(SHA-256(verifier)) equals the stored challenge (constant-time comparison). */
export async function pkceMatches(verifier: string, challenge: string): Promise<boolean> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
  );
  const computed = new TextEncoder().encode(base64Url(digest));
  const expected = new TextEncoder().encode(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/** `jti` and `exp` of a JWT we just signed (payload decoded, not verified), for revocation bookkeeping. */
export function accessTokenIds(token: string): { jti: string | null; expiresAt: Date | null } {
  try {
    const payload = JSON.parse(
      atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/")),
    ) as { jti?: unknown; exp?: unknown };
    return {
      jti: typeof payload.jti === "string" ? payload.jti : null,
      expiresAt: typeof payload.exp === "number" ? new Date(payload.exp * 1000) : null,
    };
  } catch {
    return { jti: null, expiresAt: null };
  }
}

interface Grant {
  userId: string;
  projectId: string;
  clientId: string | null;
  /** The scope granted at consent. */
  scope: "read" | "write";
}

/**
 * Whether the authorization still holds: the organization is active, the project exists and is
 * active, the user is still a member. Returns the effective scope (viewers capped to `read`).
 */
async function currentScope(db: DbOrTrx, grant: Grant): Promise<"read" | "write"> {
  const row = await db.selectFrom("memberships")
    .innerJoin("projects", "projects.id", "memberships.project_id")
    .innerJoin("organizations", "organizations.id", "projects.org_id")
    .select(["memberships.role", "projects.status as projectStatus", "organizations.status as orgStatus"])
    .where("memberships.project_id", "=", grant.projectId)
    .where("memberships.user_id", "=", grant.userId)
    .executeTakeFirst();
  if (!row) {
    throw invalidGrant("The authorization is no longer valid: the user is not a member of the project");
  }
  if (row.orgStatus !== "active") {
    throw invalidGrant("The authorization is no longer valid: the organization is not active");
  }
  if (row.projectStatus !== "active") {
    throw invalidGrant("The authorization is no longer valid: the project is not active");
  }
  return row.role === "viewer" ? "read" : grant.scope;
}

async function orgOf(db: DbOrTrx, projectId: string): Promise<string> {
  const row = await db.selectFrom("projects").select("org_id").where("id", "=", projectId)
    .executeTakeFirstOrThrow();
  return row.org_id;
}

/** Revokes every live refresh token of the families started by `codeId`, and their access tokens. */
async function revokeCodeFamilies(db: DbOrTrx, codeId: string, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const rows = await trx.updateTable("oauth_refresh_tokens").set({ revoked_at: now })
      .where("code_id", "=", codeId).where("revoked_at", "is", null)
      .returning(["access_jti", "access_expires_at"]).execute();
    await revokeAccessJtis(trx, rows, now);
  });
}

/** Revokes every live refresh token of a family (access tokens already issued stay valid: OAUTH-062). */
export async function revokeFamily(db: DbOrTrx, familyId: string, now: Date): Promise<void> {
  await db.updateTable("oauth_refresh_tokens").set({ revoked_at: now })
    .where("family_id", "=", familyId).where("revoked_at", "is", null).execute();
}

async function revokeAccessJtis(
  db: DbOrTrx,
  rows: { access_jti: string | null; access_expires_at: Date | null }[],
  now: Date,
): Promise<void> {
  const values = rows.filter((r) => r.access_jti !== null && r.access_expires_at !== null)
    .map((r) => ({ jti: r.access_jti!, revoked_at: now, expires_at: r.access_expires_at! }));
  if (values.length === 0) return;
  await db.insertInto("oauth_revoked_access_tokens").values(values)
    .onConflict((oc) => oc.column("jti").doNothing()).execute();
}

interface Issued {
  accessToken: string;
  expiresIn: number;
  scope: "read" | "write";
  jti: string | null;
  accessExpiresAt: Date | null;
}

async function signAccess(ctx: ServiceCtx, grant: Grant, scope: "read" | "write"): Promise<Issued> {
  const orgId = await orgOf(ctx.db, grant.projectId);
  const issued = await issueAccessToken(ctx, {
    userId: grant.userId,
    projectId: grant.projectId,
    orgId,
    scope,
    clientId: grant.clientId,
  });
  const ids = accessTokenIds(issued.accessToken);
  return {
    accessToken: issued.accessToken,
    expiresIn: issued.expiresIn,
    scope,
    jti: ids.jti,
    accessExpiresAt: ids.expiresAt,
  };
}

function response(issued: Issued, refreshToken: string): TokenResponse {
  return {
    access_token: issued.accessToken,
    token_type: "Bearer",
    expires_in: issued.expiresIn,
    refresh_token: refreshToken,
    scope: issued.scope,
  };
}

/** `POST /api/oauth/token`: dispatches on `grant_type`. */
export async function exchangeToken(ctx: ServiceCtx, params: TokenParams): Promise<TokenResponse> {
  const grantType = required(params, "grant_type");
  const resource = param(params, "resource");
  if (resource !== undefined && !isOwnResource(ctx.publicUrl, [resource])) {
    throw new OAuthError(
      "invalid_target",
      `resource must be this service's tool server ${audienceOf(ctx.publicUrl)}`,
    );
  }
  if (grantType === "authorization_code") return await redeemCode(ctx, params);
  if (grantType === "refresh_token") return await refresh(ctx, params);
  throw new OAuthError(
    "unsupported_grant_type",
    "grant_type must be authorization_code or refresh_token",
    400,
  );
}

/**
 * The authorization_code grant. The code must exist, be unexpired and unused; `redirect_uri` and
 * `client_id` must equal the values stored with the code (a non-loopback redirect must still be
 * registered for the client); the verifier must pass the S256 check. The code is consumed by a
 * conditional update in the same transaction as the first refresh token, so of concurrent redemptions
 * exactly one succeeds. A code presented again (used) revokes every token issued from its first use.
 */
async function redeemCode(ctx: ServiceCtx, params: TokenParams): Promise<TokenResponse> {
  const code = required(params, "code");
  const redirectUri = required(params, "redirect_uri");
  const verifier = required(params, "code_verifier");
  const clientId = param(params, "client_id") || null;
  if (!VERIFIER.test(verifier)) {
    throw invalidRequest("code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~");
  }
  const now = ctx.clock.now();
  const row = await ctx.db.selectFrom("oauth_codes").selectAll()
    .where("code_hash", "=", hashToken(code)).executeTakeFirst();
  if (!row) throw invalidGrant("The authorization code is invalid");
  if (row.used_at !== null) {
    await revokeCodeFamilies(ctx.db, row.id, now);
    throw invalidGrant("The authorization code was already used; tokens issued from it are revoked");
  }
  if (row.expires_at.getTime() <= now.getTime()) throw invalidGrant("The authorization code has expired");
  if (redirectUri !== row.redirect_uri) {
    throw invalidGrant("redirect_uri does not match the authorization request");
  }
  if (clientId !== row.client_id) throw invalidGrant("client_id does not match the authorization request");
  if (row.client_id !== null && !isLoopbackRedirect(redirectUri)) {
    const client = await ctx.db.selectFrom("oauth_clients").select("redirect_uris")
      .where("client_id", "=", row.client_id).executeTakeFirst();
    if (!client || !redirectMatches(redirectUri, client.redirect_uris)) {
      throw invalidGrant("redirect_uri is not registered for this client");
    }
  }
  if (!(await pkceMatches(verifier, row.code_challenge))) {
    throw invalidGrant("code_verifier does not match the code_challenge");
  }
  const next = await nextTokens(ctx, row, {
    family_id: crypto.randomUUID(),
    code_id: row.id,
    family_expires_at: new Date(now.getTime() + REFRESH_FAMILY_TTL_MS),
  }, now);
  const won = await ctx.db.transaction().execute(async (trx) => {
    const consumed = await trx.updateTable("oauth_codes").set({ used_at: now })
      .where("id", "=", row.id).where("used_at", "is", null).returning("id").executeTakeFirst();
    if (!consumed) return false;
    await trx.insertInto("oauth_refresh_tokens").values(next.row).execute();
    return true;
  });
  if (!won) {
    // Lost a race with another redemption of the same code: a second presentation.
    await revokeCodeFamilies(ctx.db, row.id, now);
    throw invalidGrant("The authorization code was already used; tokens issued from it are revoked");
  }
  return response(next.issued, next.refreshToken);
}

interface GrantRow {
  user_id: string;
  project_id: string;
  client_id: string | null;
  scope: "read" | "write";
}

/**
 * What both grants issue: an access token for the grant's current scope (signed before the transaction,
 * since signing reads keys through ctx.db; discarded if the grant is lost) and the family's next refresh
 * token, with the row that stores it.
 */
async function nextTokens(
  ctx: ServiceCtx,
  row: GrantRow,
  family: { family_id: string; code_id: string | null; family_expires_at: Date },
  now: Date,
  /** A refresh may ask for less than the grant; the refresh token keeps the grant's scope (RFC 6749 6). */
  accessScope: "read" | "write" = row.scope,
) {
  const grant: Grant = {
    userId: row.user_id,
    projectId: row.project_id,
    clientId: row.client_id,
    scope: accessScope,
  };
  const issued = await signAccess(ctx, grant, await currentScope(ctx.db, grant));
  const refreshToken = REFRESH_TOKEN_PREFIX + randomSecret(32);
  return {
    issued,
    refreshToken,
    row: {
      id: crypto.randomUUID(),
      ...family,
      token_hash: hashToken(refreshToken),
      client_id: row.client_id,
      user_id: row.user_id,
      project_id: row.project_id,
      scope: row.scope,
      access_jti: issued.jti,
      access_expires_at: issued.accessExpiresAt,
      created_at: now,
    },
  };
}

/**
 * The scope a refresh asks for (RFC 6749 section 6): omitted is the scope granted at consent; asking for
 * `write` on a `read` grant is `invalid_scope` (never silently narrowed); asking for `read` on a `write`
 * grant gets `read`. Values other than `read` and `write` are ignored, as at authorize (OAUTH-034).
 */
function refreshScope(granted: "read" | "write", asked: string | undefined): "read" | "write" {
  if (asked === undefined) return granted;
  const wantsWrite = asked.split(" ").includes("write");
  if (wantsWrite && granted !== "write") {
    throw new OAuthError("invalid_scope", `The scope asked for exceeds the scope granted ("${granted}")`);
  }
  return wantsWrite ? "write" : "read";
}

/**
 * The refresh_token grant. The token must be known, unrevoked, unused and inside its family's 30-day
 * window; a used token revokes the whole family, and so does a `client_id` that differs from the
 * family's. The organization, project and membership are checked again and the viewer cap re-applied.
 * Rotation consumes the token with a conditional update in the transaction that inserts the next one.
 */
async function refresh(ctx: ServiceCtx, params: TokenParams): Promise<TokenResponse> {
  const presented = required(params, "refresh_token");
  const clientId = param(params, "client_id") || null;
  const asked = param(params, "scope");
  const now = ctx.clock.now();
  const row = presented.startsWith(REFRESH_TOKEN_PREFIX)
    ? await ctx.db.selectFrom("oauth_refresh_tokens").selectAll()
      .where("token_hash", "=", hashToken(presented)).executeTakeFirst()
    : undefined;
  if (!row) throw invalidGrant("The refresh token is invalid");
  if (row.revoked_at !== null) throw invalidGrant("The refresh token was revoked");
  if (row.used_at !== null) {
    await revokeFamily(ctx.db, row.family_id, now);
    throw invalidGrant("The refresh token was already used; its token family is revoked");
  }
  if (row.family_expires_at.getTime() <= now.getTime()) throw invalidGrant("The refresh token has expired");
  if (clientId !== row.client_id) {
    await revokeFamily(ctx.db, row.family_id, now);
    throw invalidGrant("client_id does not match the refresh token; its token family is revoked");
  }
  const next = await nextTokens(
    ctx,
    row,
    {
      family_id: row.family_id,
      code_id: row.code_id,
      family_expires_at: row.family_expires_at,
    },
    now,
    refreshScope(row.scope, asked),
  );
  const won = await ctx.db.transaction().execute(async (trx) => {
    const consumed = await trx.updateTable("oauth_refresh_tokens").set({ used_at: now })
      .where("id", "=", row.id).where("used_at", "is", null).where("revoked_at", "is", null)
      .returning("id").executeTakeFirst();
    if (!consumed) return false;
    await trx.insertInto("oauth_refresh_tokens").values(next.row).execute();
    return true;
  });
  if (!won) {
    // Lost a race with another refresh of the same token (or it was revoked meanwhile): a replay.
    await revokeFamily(ctx.db, row.family_id, now);
    throw invalidGrant("The refresh token was already used; its token family is revoked");
  }
  return response(next.issued, next.refreshToken);
}

/**
 * `POST /api/oauth/revoke` (RFC 7009). A refresh token revokes its whole family; a valid access token
 * is recorded by `jti` so verification refuses it afterwards. Unknown or malformed tokens are ignored,
 * and so is a token presented with a `client_id` it was not issued to (RFC 7009 section 2.1: the
 * answer is the same `200`, nothing is revoked).
 */
export async function revokeToken(
  ctx: ServiceCtx,
  params: TokenParams,
): Promise<void> {
  const token = required(params, "token");
  param(params, "token_type_hint"); // optional; a wrong hint is ignored (RFC 7009 section 2.1)
  const clientId = param(params, "client_id") || undefined;
  const issuedTo = (owner: string | null) => clientId === undefined || clientId === owner;
  const now = ctx.clock.now();
  if (token.startsWith(REFRESH_TOKEN_PREFIX)) {
    const row = await ctx.db.selectFrom("oauth_refresh_tokens").select(["family_id", "client_id"])
      .where("token_hash", "=", hashToken(token)).executeTakeFirst();
    if (row && issuedTo(row.client_id)) await revokeFamily(ctx.db, row.family_id, now);
    return;
  }
  if (token.split(".").length !== 3) return;
  let verified: { clientId: string | null };
  try {
    verified = await verifyAccessToken(ctx, token);
  } catch {
    return; // not a live access token of this service: nothing to revoke
  }
  if (!issuedTo(verified.clientId)) return;
  const claims = accessTokenIds(token);
  if (!claims.jti || !claims.expiresAt) return;
  await ctx.db.insertInto("oauth_revoked_access_tokens")
    .values({ jti: claims.jti, revoked_at: now, expires_at: claims.expiresAt })
    .onConflict((oc) => oc.column("jti").doNothing()).execute();
}
