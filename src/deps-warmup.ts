/**
 * Imports every runtime npm dependency and nothing else, so the container image caches them in a layer
 * that only deno.json and deno.lock invalidate (see Dockerfile). Never run.
 */
import "hono";
import "oauth4webapi";
import "@hono/zod-openapi";
import "zod";
import "kysely";
import "@electric-sql/pglite";
import "kysely-postgres-js";
import "postgres";
import "jose";
import "@scalar/hono-api-reference";
