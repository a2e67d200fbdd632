/**
 * Where a webhook may be sent (issue 26, SSRF): `https` only, and never to an address of the service's own
 * network. Checked when an endpoint is created or changed, and again before each delivery (DNS can change);
 * redirects are never followed (the sender passes `redirect: "manual"`).
 */

/** Resolves a host name to its addresses (A and AAAA); injectable in tests. */
export type Resolver = (host: string) => Promise<string[]>;

export interface DestinationPolicy {
  /** `SVC_WEBHOOK_ALLOW_LOOPBACK=1`: `http` and loopback addresses allowed (development and tests). */
  allowLoopback: boolean;
  resolve?: Resolver | undefined;
}

/** Why an address is refused, or null when it is a public address. */
export type AddressClass = "loopback" | "private" | "link_local" | "metadata" | "reserved" | null;

/** Cloud metadata services, refused by address and by name whatever else applies. */
const METADATA_ADDRESSES = new Set(["169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254"]);
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata", "instance-data"]);

/** Every address of the host (A and AAAA); a lookup that fails answers no address. */
export const systemResolver: Resolver = async (host) => {
  const out: string[] = [];
  for (const type of ["A", "AAAA"] as const) {
    try {
      out.push(...await Deno.resolveDns(host, type));
    } catch {
      // NXDOMAIN or no record of this type: the other type may still answer.
    }
  }
  return out;
};

function ipv4Parts(ip: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function classifyIpv4(parts: number[]): AddressClass {
  const [a = 0, b = 0] = parts;
  if (METADATA_ADDRESSES.has(parts.join("."))) return "metadata";
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "link_local";
  // 0/8 "this network", 100.64/10 shared (CGNAT), 192.0.0/24, benchmarking 198.18/15, multicast and above.
  if (a === 0 || (a === 100 && b >= 64 && b <= 127) || (a === 192 && b === 0 && parts[2] === 0)) {
    return "reserved";
  }
  if ((a === 198 && (b === 18 || b === 19)) || a >= 224) return "reserved";
  return null;
}

/** The eight 16-bit groups of an IPv6 address (with an embedded IPv4 tail), or null. */
function ipv6Groups(ip: string): number[] | null {
  let text = ip.toLowerCase().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const p = ipv4Parts(v4[1]!);
    if (!p) return null;
    text = text.slice(0, -v4[1]!.length) +
      `${((p[0]! << 8) | p[1]!).toString(16)}:${((p[2]! << 8) | p[3]!).toString(16)}`;
  }
  if (!/^[0-9a-f:]+$/.test(text) || text.split("::").length > 2) return null;
  const [head = "", tail] = text.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const fill = tail === undefined ? 0 : 8 - left.length - right.length;
  if (fill < 0) return null;
  const groups = [...left, ...Array(fill).fill("0"), ...right].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => g >= 0 && g <= 0xffff) ? groups : null;
}

function classifyIpv6(g: number[]): AddressClass {
  if (g[0] === 0xfd00 && g[1] === 0xec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) {
    return "metadata";
  }
  const zeroHead = g.slice(0, 5).every((x) => x === 0);
  if (zeroHead && g[5] === 0xffff) return classifyIpv4([g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255]);
  if (zeroHead && g[5] === 0 && g[6] === 0 && g[7] === 1) return "loopback";
  if (zeroHead && g[5] === 0 && g[6] === 0 && g[7] === 0) return "reserved";
  if ((g[0]! & 0xfe00) === 0xfc00) return "private";
  if ((g[0]! & 0xffc0) === 0xfe80) return "link_local";
  if ((g[0]! & 0xff00) === 0xff00) return "reserved";
  return null;
}

/** The class of an IP literal (v4 or v6), or undefined when `ip` is not one. */
export function classifyAddress(ip: string): AddressClass | undefined {
  const v4 = ipv4Parts(ip);
  if (v4) return classifyIpv4(v4);
  const v6 = ip.includes(":") ? ipv6Groups(ip) : null;
  return v6 ? classifyIpv6(v6) : undefined;
}

/** A refusal of a destination: what was refused and why, in words for the operator. */
export class DestinationRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "DestinationRefused";
  }
}

/**
 * Checks a webhook URL against the policy and answers the addresses it resolves to; throws
 * `DestinationRefused` when the scheme, the name or any address is refused (one bad address is enough:
 * the sender cannot choose which one the connection uses).
 */
export async function checkDestination(url: string, policy: DestinationPolicy): Promise<string[]> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DestinationRefused("not a URL");
  }
  const scheme = parsed.protocol;
  if (scheme !== "https:" && !(scheme === "http:" && policy.allowLoopback)) {
    throw new DestinationRefused(`scheme ${scheme.replace(/:$/, "")} refused: use https`);
  }
  if (parsed.username || parsed.password) throw new DestinationRefused("credentials in the URL are refused");
  const host = parsed.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  if (METADATA_NAMES.has(host)) throw new DestinationRefused(`host ${host} is a cloud metadata service`);
  const literal = classifyAddress(host);
  const addresses = literal !== undefined
    ? [host]
    : host === "localhost" || host.endsWith(".localhost")
    ? ["127.0.0.1"]
    : await (policy.resolve ?? systemResolver)(host);
  if (addresses.length === 0) throw new DestinationRefused(`host ${host} does not resolve`);
  for (const address of addresses) {
    const kind = classifyAddress(address);
    if (kind === undefined) throw new DestinationRefused(`host ${host} resolved to a malformed address`);
    if (kind === null || (kind === "loopback" && policy.allowLoopback)) continue;
    throw new DestinationRefused(`host ${host} resolves to a ${kind.replace("_", "-")} address (${address})`);
  }
  return addresses;
}
