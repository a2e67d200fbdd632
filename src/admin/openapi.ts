import type { OpenAPIHono } from "@hono/zod-openapi";
import { SERVICE_VERSION } from "@/config.ts";
import { errorExampleComponents } from "@/contracts/examples/index.ts";
import type { AppEnv } from "@/http/env.ts";

const DESCRIPTION =
  `The operator API of the agent coordination service: organizations, users, projects, members,
pairing codes and API keys, their reads and their undo, signing-key rotation and the test clock.

**Base URL.** Every path is relative to \`{origin}/admin\`.

**Credentials.** \`Authorization: Bearer <SVC_ADMIN_TOKEN>\` on every route, this document included; a missing or
wrong token answers \`401 UNAUTHORIZED\`, and every route answers \`404 NOT_FOUND\` while the server has no admin token.

**Envelope.** Success: \`{ data, meta }\` (201 for creates); a list's \`meta.nextCursor\` names the next page (null
on the last). Error: \`{ error: { code, message, details? } }\`. A malformed body or id answers
\`400 VALIDATION_ERROR\` with \`details.fields[] { path, message, code }\`; a well-formed id that names nothing \`404\`.`;

/** The operator API's OpenAPI 3.1 document (committed as openapi/operator.json), as text. */
export function operatorDocumentText(admin: OpenAPIHono<AppEnv>): string {
  admin.openAPIRegistry.registerComponent("securitySchemes", "adminAuth", {
    type: "http",
    scheme: "bearer",
    description: "The server's admin token (SVC_ADMIN_TOKEN)",
  });
  for (const [name, example] of errorExampleComponents()) {
    admin.openAPIRegistry.registerComponent("examples", name, example);
  }
  const doc = admin.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Agent Coordination Service: operator API",
      version: SERVICE_VERSION,
      description: DESCRIPTION,
      license: { name: "MIT", url: "https://opensource.org/license/mit" },
    },
    servers: [{ url: "/admin" }],
    security: [{ adminAuth: [] }],
  });
  return JSON.stringify(doc, null, 2) + "\n";
}
