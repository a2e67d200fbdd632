import type { Json, NullableTimestamp, Timestamp } from "./types.ts";
import type { OAuthScope } from "@/shared/vocabulary.ts";

/** A dynamically registered public client (RFC 7591). */
export interface OAuthClientsTable {
  client_id: string;
  client_name: string;
  redirect_uris: Json<string[]>;
  created_at: Timestamp;
}

/** An authorization code: SHA-256 hex of `svc_ac_...`, 60 seconds, single use (`used_at`). */
export interface OAuthCodesTable {
  id: string;
  code_hash: string;
  client_id: string | null;
  redirect_uri: string;
  /** The S256 PKCE challenge (base64url, 43 to 128 characters). */
  code_challenge: string;
  user_id: string;
  project_id: string;
  scope: OAuthScope;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

/** A browser sign-in session of the consent page; the cookie value is stored only as its hash. */
export interface WebSessionsTable {
  id_hash: string;
  user_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

/** Tables added by migration 0016 (OAuth clients, codes, browser sessions). */
export interface OAuthClientsTables {
  oauth_clients: OAuthClientsTable;
  oauth_codes: OAuthCodesTable;
  web_sessions: WebSessionsTable;
}
