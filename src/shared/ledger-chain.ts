/**
 * The ledger's hash chain, as the service computes it and as `deno task cli ledger verify` recomputes it
 * (issue 26.5): pure functions, no database.
 *
 * `hash(entry) = hex(SHA-256(utf8(previousHash + canonicalJson(entry))))`, in the project's ledger `seq`
 * order, starting from GENESIS_HASH. The canonical JSON lists CHAIN_FIELDS in that order; nested objects
 * (`payload`, `envHealth`) have their keys sorted, recursively; no whitespace.
 */

/** The "previous hash" of a project's first entry. */
export const GENESIS_HASH = "0".repeat(64);

/** A ledger entry as the chain sees it (and the operator API serves it). */
export interface ChainEntry {
  id: string;
  seq: number;
  projectId: string;
  type: string;
  content: string;
  source: string;
  audit: boolean;
  agentId: string | null;
  subAgentName: string | null;
  sessionId: string | null;
  ticketId: string | null;
  threadId: string | null;
  fileRef: string | null;
  lineRef: number | null;
  labels: unknown;
  payload: unknown;
  severity: string | null;
  tokensUsed: number | null;
  activity: string | null;
  envHealth: unknown;
  blockedByFile: string | null;
  createdAt: string;
}

/** The fields of the canonical JSON, in their fixed order. */
export const CHAIN_FIELDS = [
  "id",
  "seq",
  "projectId",
  "type",
  "content",
  "source",
  "audit",
  "agentId",
  "subAgentName",
  "sessionId",
  "ticketId",
  "threadId",
  "fileRef",
  "lineRef",
  "labels",
  "payload",
  "severity",
  "tokensUsed",
  "activity",
  "envHealth",
  "blockedByFile",
  "createdAt",
] as const satisfies readonly (keyof ChainEntry)[];

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(obj).sort().map((k) => [k, sorted(obj[k])]));
  }
  return value;
}

/** The entry's canonical JSON: CHAIN_FIELDS in order, nested keys sorted, absent values as null. */
export function canonicalJson(entry: ChainEntry): string {
  return JSON.stringify(Object.fromEntries(CHAIN_FIELDS.map((f) => [f, sorted(entry[f] ?? null)])));
}

/** The entry's chain hash (hex) after `previous`. */
export async function chainHash(previous: string, entry: ChainEntry): Promise<string> {
  const bytes = new TextEncoder().encode(previous + canonicalJson(entry));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The payload a checkpoint's JWS signs. */
export interface CheckpointClaims {
  projectId: string;
  seq: number;
  hash: string;
  signedAt: string;
}

/** The `typ` header of a checkpoint's JWS. */
export const CHECKPOINT_JWS_TYPE = "ledger-checkpoint+jws";
