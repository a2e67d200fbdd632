import { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import { adminApp } from "@/admin/app.ts";
import { bodyGuards, MAX_BODY_BYTES, PAIRING_MAX_BODY_BYTES } from "@/http/body.ts";
import type { AppDeps, AppEnv } from "@/http/env.ts";
import { errorBody, errorResponse } from "@/http/errors.ts";
import { requestId } from "@/http/request-id.ts";
import { accessLog, type LogWriter } from "@/http/access-log.ts";
import { apiCors, htmlSecurityHeaders } from "@/http/browser.ts";
import { Metrics, type MetricsState } from "@/http/metrics.ts";
import { registerOps } from "@/routes/ops.ts";
import { textGuard } from "@/http/text-guard.ts";
import { validationHook } from "@/http/validation.ts";
import { registerRoutes } from "@/routes/index.ts";
import { documentOAuthTokenRoutes, oauthTokenRoutes } from "@/routes/oauth/token.ts";
import { registerDocs } from "@/routes/docs.ts";
import { documentOAuthMetadata, registerOAuthMetadata } from "@/routes/oauth/metadata.ts";
import { buildOpenApiDocument } from "@/openapi.ts";
import { syncTestClock } from "@/domain/maintenance/test-clock.ts";
import { authorizeApp } from "@/routes/oauth/authorize.ts";
import { documentOAuthClientRoutes, registerApp } from "@/routes/oauth/register.ts";
import { COORDINATION_TOOLS } from "@/mcp/tools/coordination.ts";
import { mcpApp } from "@/routes/mcp.ts";
import { createForward } from "@/mcp/forward.ts";
import { TOOLS } from "@/mcp/tools/index.ts";
import { mcpReferenceMarkdown } from "@/mcp/reference.ts";
import { dashboardApp } from "@/dashboard/app.tsx";
import { loggableError } from "@/shared/log-safe.ts";
import { kickWebhookDelivery } from "@/domain/webhooks/run.ts";
import { webhooksActive } from "@/domain/webhooks/active.ts";

/** The REST API (`{base_url}` routes), without the service around it. */
export function createApi(): OpenAPIHono<AppEnv> {
  const api = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerRoutes(api);
  documentOAuthTokenRoutes(api.openAPIRegistry);
  documentOAuthMetadata(api.openAPIRegistry);
  documentOAuthClientRoutes(api.openAPIRegistry);
  return api;
}

/** What the service reports about itself: metrics (one registry per process) and the access log. */
export interface AppOptions {
  metrics?: Metrics;
  /** One line per request; none when omitted (tests). */
  log?: LogWriter;
  /** This worker, `index/count`, when several serve the port (src/cluster.ts): `/health` names it. */
  worker?: string;
  /** The other workers' metrics (src/cluster.ts `shareMetrics`), summed into `/metrics`. */
  peerMetrics?: () => Promise<MetricsState[]>;
}

/** The whole service: REST under /api and /svc, operator API, health, document and docs page. */
export function createApp(deps: AppDeps, options: AppOptions = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const metrics = options.metrics ?? new Metrics();
  app.use("*", requestId());
  app.use("*", accessLog(metrics, options.log));
  app.use("*", htmlSecurityHeaders());
  app.use("/api/*", apiCors(deps.config.corsOrigins));
  app.use("/svc/*", apiCors(deps.config.corsOrigins));
  app.use("*", async (c, next) => {
    c.set("deps", deps);
    await next();
  });
  if (deps.config.testClock) {
    // The test clock's offset lives in the database (POST /admin/clock on any instance moves them all):
    // one small read per request, only when the test clock is on.
    app.use("*", async (_c, next) => {
      await syncTestClock(deps.db, deps.clock).catch((err) =>
        console.error(`test clock sync failed: ${loggableError(err)}`)
      );
      await next();
    });
  }
  app.use("*", async (c, next) => {
    await next();
    // A write may have queued webhook deliveries: send them now rather than at the next timer round
    // (only once this process has seen an endpoint, so a service without webhooks does no extra work).
    if (c.req.method !== "GET" && c.req.method !== "HEAD" && webhooksActive(deps.db)) {
      kickWebhookDelivery({
        db: deps.db,
        clock: deps.clock,
        destinations: { allowLoopback: deps.config.webhookAllowLoopback },
      });
    }
  });
  app.use(
    "*",
    bodyGuards((path) => (path.endsWith("/pair/connect") ? PAIRING_MAX_BODY_BYTES : MAX_BODY_BYTES)),
  );
  app.use("/api/*", textGuard());
  app.use("/svc/*", textGuard());
  app.use("/admin/*", textGuard());
  app.onError(errorResponse);
  app.notFound((c) => c.json(errorBody("NOT_FOUND", `No route for ${c.req.method} ${c.req.path}`), 404));

  // OAuth surfaces (RFC shapes, not the envelope): registration and the sign-in and consent page.
  app.route("/", registerApp());
  app.route("/", authorizeApp());

  const api = createApi();
  app.route("/", oauthTokenRoutes());
  // OAuth discovery and keys (RFC shapes, not the envelope), before the REST API claims /api/*.
  registerOAuthMetadata(app);
  app.route("/api", api);
  app.route("/svc", api);
  app.route("/admin", adminApp());
  // The tool server: REST in-process through this very app, or over HTTP to SVC_REST_URL when set.
  app.route(
    "/mcp",
    mcpApp({
      tools: TOOLS,
      coordinationTools: COORDINATION_TOOLS,
      forwardFor: (bearer, c) =>
        createForward({
          bearer,
          restUrl: deps.config.restUrl,
          fetch: deps.config.restUrl ? undefined : (request) => app.fetch(request),
          origin: deps.config.publicUrl,
          headers: { "X-Request-Id": c.get("requestId") },
        }),
    }),
  );

  const document = buildOpenApiDocument(api);
  const documentJson = JSON.stringify(document, null, 2) + "\n";
  registerOps(app, metrics, options.worker, options.peerMetrics);
  app.get("/openapi.json", (c) => c.body(documentJson, 200, { "Content-Type": "application/json" }));
  registerDocs(app, document, mcpReferenceMarkdown(TOOLS));
  // The web dashboard for project members (server-rendered HTML, its own sign-in at `/`).
  app.route("/", dashboardApp());
  return app;
}
