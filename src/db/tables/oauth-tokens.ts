import type { NullableTimestamp, Timestamp } from "./types.ts";
import type { OAuthScope } from "@/shared/vocabulary.ts";

/** One refresh token (`svc_rt_`, hashed) of a family started by one code exchange. */
export interface OAuthRefreshTokensTable {
  id: string;
  family_id: string;
  code_id: string | null;
  token_hash: string;
  client_id: string | null;
  user_id: string;
  project_id: string;
  scope: OAuthScope;
  access_jti: string | null;
  access_expires_at: NullableTimestamp;
  created_at: Timestamp;
  family_expires_at: Timestamp;
  used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

/** Access tokens revoked through `POST /api/oauth/revoke`, by `jti`, until they would expire. */
export interface OAuthRevokedAccessTokensTable {
  jti: string;
  revoked_at: Timestamp;
  expires_at: Timestamp;
}

export interface OAuthTokensTables {
  oauth_refresh_tokens: OAuthRefreshTokensTable;
  oauth_revoked_access_tokens: OAuthRevokedAccessTokensTable;
}
