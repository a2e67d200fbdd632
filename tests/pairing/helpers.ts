// deno-lint-ignore-file no-explicit-any
import { admin, call } from "../helpers/mod.ts";

let ipCounter = 0;

/** A fresh client address per call, so the per-IP pairing limit never interferes. */
export function freshIp(): string {
  ipCounter++;
  return `172.${16 + (ipCounter % 8)}.${Math.floor(Math.random() * 250)}.${ipCounter % 250}`;
}

export function connect(body: unknown, headers: Record<string, string> = {}) {
  return call("POST", "/pair/connect", { body, headers: { "X-Forwarded-For": freshIp(), ...headers } });
}

export function adminCode(projectId: string, body: Record<string, unknown> = {}): Promise<any> {
  return admin("POST", `/projects/${projectId}/pairing-codes`, body);
}
