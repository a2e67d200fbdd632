import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import type { DbOrTrx } from "@/db/database.ts";
import { toJson } from "@/db/tables/types.ts";
import type { ServiceCtx } from "@/domain/core/context.ts";
import { isUniqueViolation } from "@/db/errors.ts";

/** The one signing algorithm (spec: Token types, "signed JWT (RS256)"). */
export const SIGNING_ALG = "RS256";
/** Access-token lifetime in seconds (spec: 1 hour). */
export const ACCESS_TOKEN_TTL_S = 3600;
/**
 * A retired key keeps verifying, and stays in the JWKS, for one access-token lifetime plus this grace
 * (a token signed by an instance that read the key just before a rotation may carry an `iat` a moment
 * after the retirement).
 */
export const RETIRED_KEY_GRACE_S = 60;
/** Shape of the `kid` values this service mints (RFC 7638 thumbprints, base64url SHA-256). */
export const KID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

type Key = Awaited<ReturnType<typeof importJWK>>;
/** Imported keys by kid (a kid is the thumbprint of its key, so an entry never goes stale). */
const privateKeys = new Map<string, Key>();
const publicKeys = new Map<string, Key>();

/** The instant before which a retired key no longer verifies. */
function liveSince(now: Date): Date {
  return new Date(now.getTime() - (ACCESS_TOKEN_TTL_S + RETIRED_KEY_GRACE_S) * 1000);
}

async function newKeyRow(now: Date) {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, {
    extractable: true,
    modulusLength: 2048,
  });
  const publicJwk = await exportJWK(publicKey);
  const privateJwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(publicJwk, "sha256");
  return {
    kid,
    alg: SIGNING_ALG,
    public_jwk: toJson({ ...publicJwk, kid, use: "sig", alg: SIGNING_ALG }),
    private_jwk: toJson({ ...privateJwk, kid, alg: SIGNING_ALG }),
    created_at: now,
  } as const;
}

async function readCurrent(db: DbOrTrx) {
  return await db.selectFrom("oauth_signing_keys").select(["kid", "private_jwk"])
    .where("retired_at", "is", null).executeTakeFirst();
}

/**
 * The key that signs now; created on first need. Two instances creating the first key at once both
 * end up with the one that won the insert (partial unique index `oauth_signing_keys_one_current`).
 */
export async function currentSigningKey(ctx: ServiceCtx): Promise<{ kid: string; key: Key }> {
  let row = await readCurrent(ctx.db);
  if (!row) {
    await ctx.db.insertInto("oauth_signing_keys").values(await newKeyRow(ctx.clock.now()))
      .onConflict((oc) => oc.doNothing()).execute();
    row = await readCurrent(ctx.db);
    if (!row) throw new Error("no current OAuth signing key after creating one");
  }
  let key = privateKeys.get(row.kid);
  if (!key) {
    key = await importJWK(row.private_jwk as JWK, SIGNING_ALG);
    privateKeys.set(row.kid, key);
  }
  return { kid: row.kid, key };
}

/**
 * `POST /admin/keys/rotate`: a new key signs from now on; the previous one is retired and keeps
 * verifying until the tokens it signed have expired. Concurrent rotations serialize (a loser of the
 * one-current-key race retires the winner's key and retries).
 */
export async function rotateSigningKey(ctx: ServiceCtx): Promise<{ kid: string; createdAt: string }> {
  for (let attempt = 0;; attempt++) {
    const now = ctx.clock.now();
    const row = await newKeyRow(now);
    try {
      await ctx.db.transaction().execute(async (trx) => {
        await trx.updateTable("oauth_signing_keys").set({ retired_at: now }).where("retired_at", "is", null)
          .execute();
        await trx.insertInto("oauth_signing_keys").values(row).execute();
      });
      return { kid: row.kid, createdAt: now.toISOString() };
    } catch (err) {
      if (attempt < 5 && isUniqueViolation(err, "oauth_signing_keys_one_current")) continue;
      throw err;
    }
  }
}

/** The public key for `kid` if tokens it signed may still be live, else null. */
export async function verificationKey(ctx: ServiceCtx, kid: string): Promise<Key | null> {
  if (!KID_PATTERN.test(kid)) return null;
  const row = await ctx.db.selectFrom("oauth_signing_keys").select(["kid", "public_jwk"])
    .where("kid", "=", kid)
    .where((eb) => eb.or([eb("retired_at", "is", null), eb("retired_at", ">", liveSince(ctx.clock.now()))]))
    .executeTakeFirst();
  if (!row) return null;
  let key = publicKeys.get(row.kid);
  if (!key) {
    key = await importJWK(row.public_jwk as JWK, SIGNING_ALG);
    publicKeys.set(row.kid, key);
  }
  return key;
}

/**
 * `GET /api/oauth/jwks`: the public half of every key whose tokens may still be live, newest first (the
 * first key is created here when none exists yet).
 */
export async function publicJwks(ctx: ServiceCtx): Promise<{ keys: Record<string, unknown>[] }> {
  await currentSigningKey(ctx); // a verifier may fetch the set before the first token: never publish none
  const rows = await ctx.db.selectFrom("oauth_signing_keys").select(["kid", "public_jwk"])
    .where((eb) => eb.or([eb("retired_at", "is", null), eb("retired_at", ">", liveSince(ctx.clock.now()))]))
    .orderBy("created_at", "desc").orderBy("kid").execute();
  return {
    keys: rows.map((r) => {
      const { kty, n, e } = r.public_jwk as Record<string, unknown>;
      return { kty, n, e, kid: r.kid, use: "sig", alg: SIGNING_ALG };
    }),
  };
}
