import assert from "node:assert/strict";
import { callOn, test } from "../helpers/mod.ts";
import { startTestEnv } from "../helpers/env.ts";
import { contractChecked } from "../helpers/contract-check.ts";
import {
  LOOPBACK_PROXIES,
  parseIp,
  parseTrustedProxies,
  selectClientAddress,
} from "@/shared/client-address.ts";
import { readConfig } from "@/config.ts";
import { createApp } from "@/app.ts";

const TRUSTED = ["127.0.0.1", "10.0.0.0/8", "::1"];

test("SVC_TRUST_PROXY: unset trusts nobody, 1 means loopback, else a list of addresses and CIDRs", () => {
  assert.deepEqual(parseTrustedProxies(undefined), []);
  assert.deepEqual(parseTrustedProxies(""), []);
  assert.deepEqual(parseTrustedProxies("1"), [...LOOPBACK_PROXIES]);
  assert.deepEqual(parseTrustedProxies(" 127.0.0.1, 10.0.0.0/8 ,::1 "), TRUSTED);
  assert.deepEqual(readConfig({ SVC_TRUST_PROXY: "192.168.0.0/16" }).trustedProxies, ["192.168.0.0/16"]);
  for (const bad of ["yes", "10.0.0.0/33", "300.1.1.1", "::1/129", "10.0.0.0/8/1", "fe80::1::2"]) {
    assert.throws(() => parseTrustedProxies(bad), /SVC_TRUST_PROXY/, bad);
  }
});

test("IP parsing: IPv4, IPv6 with compression, brackets and zone ids, IPv4-mapped IPv6 counts as IPv4", () => {
  assert.deepEqual(parseIp("10.1.2.3"), { family: 4, value: 0x0a010203n });
  assert.deepEqual(parseIp("::ffff:10.1.2.3"), { family: 4, value: 0x0a010203n });
  assert.deepEqual(parseIp("[::1]"), { family: 6, value: 1n });
  assert.deepEqual(parseIp("fe80::1%eth0"), { family: 6, value: (0xfe80n << 112n) | 1n });
  for (const bad of ["", "1.2.3", "1.2.3.4.5", "a.b.c.d", "1::2::3", "12345::1", "unknown"]) {
    assert.equal(parseIp(bad), null, bad);
  }
});

test("RATE-040 an untrusted socket ignores X-Forwarded-For entirely", () => {
  assert.equal(selectClientAddress("198.51.100.7", "1.2.3.4", TRUSTED), "198.51.100.7");
  assert.equal(selectClientAddress("198.51.100.7", "1.2.3.4, 10.0.0.1", TRUSTED), "198.51.100.7");
  assert.equal(selectClientAddress("127.0.0.1", "1.2.3.4", []), "127.0.0.1", "no proxy configured");
  assert.equal(selectClientAddress("::ffff:198.51.100.7", "1.2.3.4", TRUSTED), "198.51.100.7");
});

test("RATE-040 behind trusted proxies the right-most untrusted hop is the client; spoofed left entries are ignored", () => {
  // The client sent "X-Forwarded-For: 6.6.6.6, 7.7.7.7"; the proxy at 10.0.0.5 appended the real peer.
  assert.equal(selectClientAddress("10.0.0.5", "6.6.6.6, 7.7.7.7, 203.0.113.9", TRUSTED), "203.0.113.9");
  // Two proxies in a chain: the edge (10.0.0.9) appended the client, the inner one appended the edge.
  assert.equal(selectClientAddress("127.0.0.1", "6.6.6.6, 203.0.113.9, 10.0.0.9", TRUSTED), "203.0.113.9");
  // A spoofed trusted-looking entry left of the real client changes nothing.
  assert.equal(selectClientAddress("10.0.0.5", "10.0.0.1, 203.0.113.9", TRUSTED), "203.0.113.9");
  // Several headers are joined by the Headers object with ", ".
  assert.equal(selectClientAddress("::1", "6.6.6.6, 2001:db8::1", TRUSTED), "2001:db8::1");
  // Every hop trusted: the left-most; no header: the proxy itself.
  assert.equal(selectClientAddress("10.0.0.5", "10.0.0.7, 10.0.0.6", TRUSTED), "10.0.0.7");
  assert.equal(selectClientAddress("10.0.0.5", undefined, TRUSTED), "10.0.0.5");
  assert.equal(selectClientAddress("10.0.0.5", " , ", TRUSTED), "10.0.0.5");
  // No socket (in-process) counts as loopback.
  assert.equal(selectClientAddress(undefined, "203.0.113.9", LOOPBACK_PROXIES), "203.0.113.9");
  assert.equal(selectClientAddress(undefined, "203.0.113.9", []), "127.0.0.1");
});

test("RATE-040 the pairing limit counts the right-most untrusted hop, not the spoofable left-most one", async () => {
  const e = await startTestEnv();
  try {
    const attempt = (forwarded: string) =>
      callOn(e, "POST", "/pair/connect", {
        body: { code: "NOPE0000" },
        headers: { "X-Forwarded-For": forwarded },
      });
    for (let i = 0; i < 10; i++) {
      const res = await attempt(`198.18.${i}.1, 203.0.113.50`);
      assert.equal(res.status, 401, res.text);
    }
    const refused = await attempt("198.18.99.1, 203.0.113.50");
    assert.equal(refused.status, 429, "a fresh spoofed left-most entry does not reset the limit");
    assert.equal(refused.body.error.code, "RATE_LIMITED");
    assert.equal((await attempt("203.0.113.50, 203.0.113.51")).status, 401, "another client is not limited");
  } finally {
    await e.close();
  }
});

test("RATE-040 with no trusted proxy configured X-Forwarded-For cannot dodge the pairing limit", async () => {
  const e = await startTestEnv({ trustedProxies: [] });
  try {
    for (let i = 0; i < 10; i++) {
      const res = await callOn(e, "POST", "/pair/connect", {
        body: { code: "NOPE0000" },
        headers: { "X-Forwarded-For": `198.18.${i}.2` },
      });
      assert.equal(res.status, 401, res.text);
    }
    const refused = await callOn(e, "POST", "/pair/connect", {
      body: { code: "NOPE0000" },
      headers: { "X-Forwarded-For": "198.18.200.2" },
    });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error.code, "RATE_LIMITED");
  } finally {
    await e.close();
  }
});

test("RATE-040 over a real socket the peer address comes from Deno.serve's remoteAddr", async () => {
  const e = await startTestEnv();
  const app = createApp({
    db: e.db,
    engine: e.engine,
    clock: e.clock,
    config: { ...e.config, trustedProxies: ["10.0.0.0/8"] },
  });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
  try {
    const url = `http://127.0.0.1:${server.addr.port}/api/pair/connect`;
    const attempt = async (forwarded: string) => {
      const res = await contractChecked(fetch)(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": forwarded },
        body: JSON.stringify({ code: "NOPE0000" }),
      });
      return { status: res.status, body: await res.json() };
    };
    for (let i = 0; i < 10; i++) assert.equal((await attempt(`198.18.${i}.3`)).status, 401);
    const refused = await attempt("198.18.201.3");
    assert.equal(refused.status, 429, "the untrusted peer 127.0.0.1 is the client, whatever the header says");
    assert.equal(refused.body.error.code, "RATE_LIMITED");
  } finally {
    await server.shutdown();
    await e.close();
  }
});
