/**
 * Vendors Scalar's standalone API-reference bundle (MIT) from the npm registry, so `/docs` works offline
 * (no CDN): downloads the pinned tarball, checks its registry integrity, extracts
 * `dist/browser/standalone.js` and writes it gzip-compressed to src/routes/vendor/. Run with
 * `deno task vendor-scalar` after changing the pin.
 */
const VERSION = "1.52.0";
const TARBALL = `https://registry.npmjs.org/@scalar/api-reference/-/api-reference-${VERSION}.tgz`;
const INTEGRITY =
  "sha512-Okqs5CwG0xanRfxdOnGthvVRCGqjuZR41tqPZhkqafNUT3k+AqFyR4QjudbTMKaW5N4s2oNoA9LnhXl0ei7xvg==";
const MEMBER = "package/dist/browser/standalone.js";
const OUT = new URL("../src/routes/vendor/scalar-standalone.js.gz", import.meta.url);

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const res = await fetch(TARBALL);
if (!res.ok) throw new Error(`cannot download ${TARBALL}: ${res.status}`);
const tgz = new Uint8Array(await res.arrayBuffer());
const digest = new Uint8Array(await crypto.subtle.digest("SHA-512", tgz));
const actual = `sha512-${btoa(String.fromCharCode(...digest))}`;
if (actual !== INTEGRITY) throw new Error(`integrity mismatch: ${actual}`);

// A ustar archive: 512-byte headers (name at 0, octal size at 124), contents padded to 512 bytes.
const tar = await bytesOf(new Blob([tgz]).stream().pipeThrough(new DecompressionStream("gzip")));
const text = new TextDecoder();
let found: Uint8Array<ArrayBuffer> | null = null;
for (let off = 0; off + 512 <= tar.length;) {
  const name = text.decode(tar.subarray(off, off + 100)).replace(/\0.*$/s, "");
  if (name === "") break;
  const size = parseInt(text.decode(tar.subarray(off + 124, off + 136)).replace(/\0.*$/s, "").trim(), 8);
  if (name === MEMBER) found = tar.slice(off + 512, off + 512 + size);
  off += 512 + Math.ceil(size / 512) * 512;
}
if (!found) throw new Error(`${MEMBER} not in the tarball`);
const gz = await bytesOf(
  new Blob([new Uint8Array(found)]).stream().pipeThrough(new CompressionStream("gzip")),
);
await Deno.writeFile(OUT, gz);
console.log(
  `wrote ${OUT.pathname} (${found.length} bytes, ${gz.length} gzip) from @scalar/api-reference@${VERSION}`,
);
