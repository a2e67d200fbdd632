/**
 * Client addresses behind trusted proxies: IP and CIDR parsing, `SVC_TRUST_PROXY`, and the choice of the
 * client address from the socket address and X-Forwarded-For. Pure: read by `config.ts` and `http/`.
 */

/** What `SVC_TRUST_PROXY=1` means: the loopback addresses (a proxy on the same host). */
export const LOOPBACK_PROXIES: readonly string[] = ["127.0.0.0/8", "::1"];

/** The address assumed when there is no socket (in-process requests: tests, `app.request`). */
export const NO_SOCKET_ADDRESS = "127.0.0.1";

interface Ip {
  family: 4 | 6;
  value: bigint;
}

interface Cidr {
  family: 4 | 6;
  base: bigint;
  prefix: number;
}

function parseIpv4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = (value << 8n) | BigInt(Number(part));
  }
  return value;
}

function parseIpv6(text: string): bigint | null {
  const zone = text.indexOf("%");
  const address = zone === -1 ? text : text.slice(0, zone);
  const halves = address.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string): number[] | null => {
    if (half === "") return [];
    const out: number[] = [];
    const pieces = half.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIpv4(piece);
        if (v4 === null) return null;
        out.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) out.push(parseInt(piece, 16));
      else return null;
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  let value = 0n;
  for (const group of [...head, ...new Array(missing).fill(0), ...tail]) {
    value = (value << 16n) | BigInt(group);
  }
  return value;
}

const V4_MAPPED = 0xffffn << 32n;

/** An IPv4 or IPv6 address (IPv4-mapped IPv6 counts as IPv4; brackets and zone ids accepted), or null. */
export function parseIp(text: string): Ip | null {
  const trimmed = text.trim().replace(/^\[(.*)\]$/, "$1");
  const v4 = parseIpv4(trimmed);
  if (v4 !== null) return { family: 4, value: v4 };
  const v6 = trimmed.includes(":") ? parseIpv6(trimmed) : null;
  if (v6 === null) return null;
  if (v6 >> 32n === V4_MAPPED >> 32n) return { family: 4, value: v6 & 0xffffffffn };
  return { family: 6, value: v6 };
}

function parseCidr(text: string): Cidr | null {
  const [address, prefixText, extra] = text.trim().split("/");
  if (extra !== undefined || address === undefined) return null;
  const ip = parseIp(address);
  if (!ip) return null;
  const bits = ip.family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= bits)) return null;
  const shift = BigInt(bits - prefix);
  return { family: ip.family, base: (ip.value >> shift) << shift, prefix };
}

function inCidr(ip: Ip, cidr: Cidr): boolean {
  if (ip.family !== cidr.family) return false;
  const shift = BigInt((ip.family === 4 ? 32 : 128) - cidr.prefix);
  return (ip.value >> shift) << shift === cidr.base;
}

/**
 * `SVC_TRUST_PROXY`: unset or empty, no proxy is trusted; `1`, the loopback addresses; otherwise a comma
 * list of addresses or CIDRs (`127.0.0.1,10.0.0.0/8,::1`). Throws on an entry that is neither.
 */
export function parseTrustedProxies(value: string | undefined): string[] {
  const text = (value ?? "").trim();
  if (text === "") return [];
  if (text === "1") return [...LOOPBACK_PROXIES];
  const entries = text.split(",").map((e) => e.trim()).filter((e) => e !== "");
  for (const entry of entries) {
    if (!parseCidr(entry)) {
      throw new Error(`Cannot read SVC_TRUST_PROXY entry "${entry}": not an IP address or CIDR`);
    }
  }
  return entries;
}

const compiled = new Map<string, Cidr[]>();

function compile(trusted: readonly string[]): Cidr[] {
  const key = trusted.join(",");
  let list = compiled.get(key);
  if (!list) {
    list = trusted.map(parseCidr).filter((c): c is Cidr => c !== null);
    compiled.set(key, list);
  }
  return list;
}

function isTrusted(address: string, cidrs: Cidr[]): boolean {
  const ip = parseIp(address);
  return ip !== null && cidrs.some((cidr) => inCidr(ip, cidr));
}

function canonicalAddress(address: string): string {
  const ip = parseIp(address);
  if (ip?.family === 4) {
    return [24n, 16n, 8n, 0n].map((s) => String((ip.value >> s) & 0xffn)).join(".");
  }
  return address.trim().replace(/^\[(.*)\]$/, "$1").toLowerCase();
}

/**
 * The client address from the socket address and the X-Forwarded-For header: the socket address unless
 * it is a trusted proxy; then the right-most X-Forwarded-For hop that is not a trusted proxy (entries
 * left of it are whatever the client chose to send, so they are ignored); when every hop is trusted, the
 * left-most hop; without a header, the socket address.
 */
export function selectClientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trustedProxies: readonly string[],
): string {
  const socket = socketAddress && socketAddress.trim() !== "" ? socketAddress : NO_SOCKET_ADDRESS;
  const cidrs = compile(trustedProxies);
  if (cidrs.length === 0 || !isTrusted(socket, cidrs)) return canonicalAddress(socket);
  const hops = (forwardedFor ?? "").split(",").map((h) => h.trim()).filter((h) => h !== "");
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!isTrusted(hops[i]!, cidrs)) return canonicalAddress(hops[i]!);
  }
  return canonicalAddress(hops[0] ?? socket);
}
