import type { Context } from "hono";
import { getConnInfo } from "hono/deno";
import { selectClientAddress } from "@/shared/client-address.ts";
import type { AppEnv } from "./env.ts";

/** The client address for every per-IP limit (see `selectClientAddress`), from `Deno.serve`'s remoteAddr. */
export function clientAddress(c: Context<AppEnv>): string {
  let socket: string | undefined;
  try {
    socket = getConnInfo(c).remote.address;
  } catch {
    socket = undefined; // no socket (in-process request): treated as loopback
  }
  return selectClientAddress(socket, c.req.header("x-forwarded-for"), c.get("deps").config.trustedProxies);
}
