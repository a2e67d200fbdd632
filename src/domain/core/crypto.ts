import { createHash, scrypt, timingSafeEqual as nodeTimingSafeEqual } from "node:crypto";

const encoder = new TextEncoder();

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A random URL-safe secret of `bytes` random bytes. */
export function randomSecret(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * Tokens are stored only as SHA-256 hashes. node:crypto hashes on the calling thread in about a
 * microsecond; WebCrypto's `subtle.digest` hops to a worker thread and back, which cost about 13 % of the
 * service's CPU on `GET /me` under load (profiled).
 */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** scrypt cost: N = 2^14, r = 8, p = 1 (16 MiB of memory per hash), 32-byte key, 16-byte salt. */
const SCRYPT = { N: 16_384, r: 8, p: 1 } as const;
const SCRYPT_KEY_BYTES = 32;

function scryptHex(password: string, salt: Uint8Array, N: number, r: number, p: number): Promise<string> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize("NFC"),
      salt,
      SCRYPT_KEY_BYTES,
      { N, r, p, maxmem: 256 * N * r },
      (err, key) => {
        if (err) reject(err);
        else resolve(toHex(new Uint8Array(key)));
      },
    );
  });
}

function fromHex(hex: string): Uint8Array {
  return new Uint8Array(hex.match(/../g)?.map((h) => parseInt(h, 16)) ?? []);
}

/**
 * Password hash with scrypt (memory-hard, node:crypto) and a random 16-byte salt, stored as
 * `scrypt$<N>$<r>$<p>$<salt>$<hash>`. Users' passwords and projects' pairing passwords use it.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await scryptHex(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${toHex(salt)}$${hash}`;
}

/** Checks a password against a stored hash (scrypt; older PBKDF2 hashes still verify), in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts[0] === "scrypt" && parts.length === 6) {
    const [, n, r, p, saltHex, expected] = parts as [string, string, string, string, string, string];
    const N = Number(n), R = Number(r), P = Number(p);
    if (![N, R, P].every((v) => Number.isInteger(v) && v > 0) || N > 1 << 20) return false;
    return timingSafeEqual(await scryptHex(password, fromHex(saltHex), N, R, P), expected);
  }
  const [scheme, iterations, saltHex, expected] = parts;
  if (scheme !== "pbkdf2" || !iterations || !saltHex || !expected) return false;
  const actual = await pbkdf2(password, fromHex(saltHex), Number(iterations));
  return timingSafeEqual(actual, expected);
}

async function pbkdf2(password: string, salt: Uint8Array, iterations: number): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    key,
    256,
  );
  return toHex(new Uint8Array(bits));
}

/**
 * Constant-time string comparison: both sides are reduced to SHA-256 digests first, so neither the
 * content nor the length of the expected value leaks through timing.
 */
export function timingSafeEqual(a: string, b: string): boolean {
  const da = createHash("sha256").update(a, "utf8").digest();
  const db = createHash("sha256").update(b, "utf8").digest();
  return nodeTimingSafeEqual(da, db);
}

/** SHA-256 hex of a pairing code (codes are stored only as this hash). */
export function hashPairingCode(code: string): string {
  return createHash("sha256").update(code, "utf8").digest("hex");
}

const CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/** A pairing code: 8 characters from an alphabet without look-alikes (0/O, 1/I). */
export function randomPairingCode(length = 8): string {
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => CODE_ALPHABET[b % CODE_ALPHABET.length]).join("");
}
