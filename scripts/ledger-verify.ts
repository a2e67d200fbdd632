/**
 * `deno task cli ledger verify --project ID`: fetches a project's ledger entries and checkpoints through
 * the operator API, recomputes the hash chain (src/shared/ledger-chain.ts), checks every checkpoint's
 * hash and its JWS against the service's public JWKS, and reports the first entry that does not match.
 * Exit code 0 when everything matches, 1 otherwise.
 */
import { compactVerify, createLocalJWKSet, type JSONWebKeySet } from "jose";
import { adminPath, adminRoutes as r } from "@/admin/routes.ts";
import {
  type ChainEntry,
  chainHash,
  CHECKPOINT_JWS_TYPE,
  type CheckpointClaims,
  GENESIS_HASH,
} from "@/shared/ledger-chain.ts";

interface Checkpoint {
  seq: number;
  hash: string;
  signedAt: string;
  jws: string;
}
interface ChainPage {
  entries: (ChainEntry & { chainHash: string | null })[];
  orphans: { seq: number; hash: string }[];
  nextAfterSeq: number | null;
}
type Fetch = typeof fetch;
interface Target {
  url: string;
  token: string | undefined;
}

async function getJson<T>(target: Target, path: string, fetchFn: Fetch, admin = true): Promise<T> {
  const res = await fetchFn(`${target.url.replace(/\/+$/, "")}${path}`, {
    headers: admin ? { Authorization: `Bearer ${target.token ?? ""}` } : {},
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
  const parsed = JSON.parse(text);
  return (admin ? parsed.data : parsed) as T;
}

async function allCheckpoints(target: Target, projectId: string, fetchFn: Fetch): Promise<Checkpoint[]> {
  const out: Checkpoint[] = [];
  let after = 0;
  for (;;) {
    const path = `${adminPath(r.ledgerCheckpoints, { projectId })}?afterSeq=${after}&limit=1000`;
    const page = await getJson<{ checkpoints: Checkpoint[]; hasMore: boolean }>(target, path, fetchFn);
    out.push(...page.checkpoints);
    if (!page.hasMore || page.checkpoints.length === 0) return out;
    after = page.checkpoints.at(-1)!.seq;
  }
}

/** Checks one checkpoint's JWS: a key of the JWKS signed exactly `{ projectId, seq, hash, signedAt }`. */
async function checkSignature(
  cp: Checkpoint,
  projectId: string,
  jwks: ReturnType<typeof createLocalJWKSet>,
): Promise<string | null> {
  try {
    const { payload, protectedHeader } = await compactVerify(cp.jws, jwks);
    if (protectedHeader.typ !== CHECKPOINT_JWS_TYPE) return `unexpected JWS typ ${protectedHeader.typ}`;
    const claims = JSON.parse(new TextDecoder().decode(payload)) as CheckpointClaims;
    const expected: CheckpointClaims = { projectId, seq: cp.seq, hash: cp.hash, signedAt: cp.signedAt };
    for (const k of ["projectId", "seq", "hash", "signedAt"] as const) {
      if (claims[k] !== expected[k]) {
        return `the signed ${k} is ${claims[k]}, the checkpoint says ${expected[k]}`;
      }
    }
    return null;
  } catch (err) {
    return `signature does not verify with the JWKS: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Recomputes the chain page by page; returns the first problem, or null, and counts what it saw. */
async function walkChain(
  target: Target,
  projectId: string,
  checkpoints: Map<number, Checkpoint>,
  fetchFn: Fetch,
  jwks: ReturnType<typeof createLocalJWKSet>,
  seen: { entries: number; checkpoints: number; head: number },
): Promise<string | null> {
  let previous = GENESIS_HASH;
  let after = 0;
  for (;;) {
    const path = `${adminPath(r.ledgerChain, { projectId })}?afterSeq=${after}&limit=1000`;
    const page = await getJson<ChainPage>(target, path, fetchFn);
    const orphans = new Map(page.orphans.map((o) => [o.seq, o]));
    for (const entry of page.entries) {
      const gone = [...orphans.keys()].filter((s) => s < entry.seq).sort((a, b) => a - b)[0];
      if (gone !== undefined) return `entry seq ${gone}: missing (deleted): the chain has a hash for it`;
      const hash = await chainHash(previous, entry);
      if (entry.chainHash !== null && entry.chainHash !== hash) {
        return `entry seq ${entry.seq} (id ${entry.id}): does not match its chain hash (changed)`;
      }
      const cp = checkpoints.get(entry.seq);
      if (cp) {
        if (cp.hash !== hash) {
          return `entry seq ${entry.seq} (id ${entry.id}): the chain up to it does not match the checkpoint ` +
            `signed at ${cp.signedAt} (an entry at or before it was changed, removed or added)`;
        }
        const bad = await checkSignature(cp, projectId, jwks);
        if (bad) return `checkpoint at seq ${cp.seq}: ${bad}`;
        checkpoints.delete(entry.seq);
        seen.checkpoints++;
      }
      previous = hash;
      seen.entries++;
      seen.head = entry.seq;
    }
    const left = [...orphans.keys()].filter((s) => s > seen.head).sort((a, b) => a - b)[0];
    if (page.nextAfterSeq === null) {
      if (left !== undefined) return `entry seq ${left}: missing (deleted): the chain has a hash for it`;
      const stray = [...checkpoints.keys()].sort((a, b) => a - b)[0];
      if (stray !== undefined) return `checkpoint at seq ${stray}: no such entry (deleted)`;
      return null;
    }
    after = page.nextAfterSeq;
  }
}

/**
 * The keys to check signatures with: the service's public JWKS, or `jwksFrom` (a saved copy: a file path or
 * a URL). The public set lists a key only while tokens it signed may be live (about an hour after a
 * rotation), so checkpoints signed before a rotation need a copy saved while their key was published.
 */
async function loadJwks(target: Target, fetchFn: Fetch, jwksFrom?: string): Promise<JSONWebKeySet> {
  if (!jwksFrom) return await getJson<JSONWebKeySet>(target, "/api/oauth/jwks", fetchFn, false);
  if (/^https?:\/\//.test(jwksFrom)) {
    const res = await fetchFn(jwksFrom);
    if (!res.ok) throw new Error(`GET ${jwksFrom}: HTTP ${res.status}`);
    return await res.json() as JSONWebKeySet;
  }
  return JSON.parse(await Deno.readTextFile(jwksFrom)) as JSONWebKeySet;
}

export async function verifyLedger(
  projectId: string,
  target: Target,
  out: (line: string) => void,
  fetchFn: Fetch = fetch,
  jwksFrom?: string,
): Promise<number> {
  try {
    const jwks = createLocalJWKSet(await loadJwks(target, fetchFn, jwksFrom));
    const checkpoints = new Map((await allCheckpoints(target, projectId, fetchFn)).map((c) => [c.seq, c]));
    const seen = { entries: 0, checkpoints: 0, head: 0 };
    const problem = await walkChain(target, projectId, checkpoints, fetchFn, jwks, seen);
    if (problem) {
      out(`ledger of project ${projectId}: MISMATCH`);
      out(`  first mismatch: ${problem}`);
      out(`  verified before it: ${seen.entries} entries, ${seen.checkpoints} signed checkpoints`);
      return 1;
    }
    out(`ledger of project ${projectId}: OK`);
    out(
      `  ${seen.entries} entries recomputed, ${seen.checkpoints} signed checkpoints verified` +
        (seen.entries > 0 ? `, last entry seq ${seen.head}` : ""),
    );
    return 0;
  } catch (err) {
    out(`error: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
