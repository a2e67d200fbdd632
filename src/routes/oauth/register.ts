import { Hono } from "hono";
import type { AppEnv } from "@/http/env.ts";
import { serviceCtx } from "@/http/env.ts";
import { clientAddress } from "@/http/client-address.ts";
import { registerClient } from "@/domain/oauth/clients.ts";
import { OAuthError } from "@/domain/oauth/errors.ts";

/** `POST /api/oauth/register`: dynamic client registration (RFC 7591), flat JSON, OAuth errors. */
export function registerApp(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post("/api/oauth/register", async (c) => {
    c.header("Cache-Control", "no-store");
    try {
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        throw new OAuthError("invalid_client_metadata", "The body must be JSON");
      }
      const client = await registerClient(serviceCtx(c.get("deps")), clientAddress(c), body);
      return c.json(client, 201);
    } catch (err) {
      if (err instanceof OAuthError) {
        if (err.retryAfterSeconds !== undefined) c.header("Retry-After", String(err.retryAfterSeconds));
        return c.json({ error: err.error, error_description: err.description }, err.status as 400);
      }
      console.error(`oauth register failed: ${err instanceof Error ? err.message : err}`);
      c.header("Retry-After", "5");
      return c.json(
        { error: "temporarily_unavailable", error_description: "Registration is temporarily unavailable" },
        503,
      );
    }
  });
  return app;
}
