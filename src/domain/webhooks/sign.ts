/**
 * Standard Webhooks signatures (standardwebhooks.com): `v1,<base64 HMAC-SHA256>` of
 * `"<webhook-id>.<webhook-timestamp>.<body>"`, keyed with the base64 part of a `whsec_` secret.
 */

const keys = new Map<string, Promise<CryptoKey>>();

function keyOf(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    const raw = Uint8Array.from(atob(secret.replace(/^whsec_/, "")), (c) => c.charCodeAt(0));
    key = crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    if (keys.size > 1000) keys.clear();
    keys.set(secret, key);
  }
  return key;
}

/** One `v1,...` signature per secret, space-separated (several during a rotation). */
export async function signatureHeader(
  secrets: string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Promise<string> {
  const content = new TextEncoder().encode(`${id}.${timestampSeconds}.${body}`);
  const out: string[] = [];
  for (const secret of secrets) {
    const mac = new Uint8Array(await crypto.subtle.sign("HMAC", await keyOf(secret), content));
    out.push(`v1,${btoa(String.fromCharCode(...mac))}`);
  }
  return out.join(" ");
}
