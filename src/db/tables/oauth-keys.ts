import type { Json, NullableTimestamp, Timestamp } from "./types.ts";

/** One OAuth signing key pair (RS256), both halves as JWKs. */
export interface OAuthSigningKeysTable {
  kid: string;
  alg: "RS256";
  public_jwk: Json<Record<string, unknown>>;
  private_jwk: Json<Record<string, unknown>>;
  created_at: Timestamp;
  retired_at: NullableTimestamp;
}

export interface OAuthKeysTables {
  oauth_signing_keys: OAuthSigningKeysTable;
}
