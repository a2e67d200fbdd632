// Issue 10, "Done when": the SDK's own Client with StreamableHTTPClientTransport and the SDK's OAuth client
// support, against a real listening service. From the first 401 it discovers the metadata (RFC 9728, RFC
// 8414), registers dynamically, authorizes (a helper signs in and approves over HTTP), exchanges the code,
// lists the 15 tools and works a ticket end to end; then the access token expires on the test clock and
// the SDK refreshes it by itself.
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { liveUser, signInAndApprove, startLiveService } from "./live.ts";

/** The spec's 15 tools (Endpoints: Tool server (MCP)). */
const SPEC_TOOLS = [
  "svc_board",
  "svc_brief_get",
  "svc_brief_update",
  "svc_handoff",
  "svc_ledger_add",
  "svc_sprint_assign",
  "svc_sprint_create",
  "svc_status",
  "svc_ticket_acknowledge",
  "svc_ticket_batch",
  "svc_ticket_begin",
  "svc_ticket_create",
  "svc_ticket_get",
  "svc_ticket_update",
  "svc_tickets",
];

/** An in-memory OAuthClientProvider: what a desktop MCP client keeps in its credential store. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  /** Set by redirectToAuthorization: where the SDK would send the user's browser. */
  authorizationUrl: URL | null = null;
  tokenSaves = 0;

  constructor(readonly callback: string) {}

  get redirectUrl(): string {
    return this.callback;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "SDK test client",
      redirect_uris: [this.callback],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
    this.tokenSaves++;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The one JSON block of a tool result, parsed. */
function block(result: any): any {
  assert.equal(result.content.length, 1, "one content block");
  assert.equal(result.content[0].type, "text");
  return JSON.parse(result.content[0].text);
}

function ok(result: any, what: string): any {
  const data = block(result);
  assert.notEqual(result.isError, true, `${what} failed: ${result.content[0].text}`);
  return data;
}

Deno.test({
  name:
    "MCP-001 MCP-007 MCP-016 SDK Client + OAuth (issue 10): discover from the 401, register, authorize, 15 tools, a ticket end to end, refresh",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const live = await startLiveService();
    const clients: Client[] = [];
    try {
      const user = await liveUser(live);
      const mcpUrl = new URL(`${live.origin}/mcp`);
      const provider = new MemoryProvider("http://127.0.0.1:33418/callback");

      // 1. No token: the transport meets the 401, discovers, registers and asks for authorization.
      const first = new Client({ name: "svc-sdk-test", version: "1.0.0" });
      await assert.rejects(
        () => first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })),
        UnauthorizedError,
      );
      assert.ok(provider.client?.client_id, "registered dynamically");
      // What the SDK did: the 401, then the resource metadata named in its challenge, the authorization
      // server's metadata, and dynamic registration, in that order.
      assert.deepEqual(live.requests.slice(0, 1), ["POST /mcp"]);
      const discovery = live.requests.filter((r) => r !== "POST /mcp");
      const at = (request: string) => {
        const i = discovery.indexOf(request);
        assert.ok(i >= 0, `${request} in ${discovery.join(", ")}`);
        return i;
      };
      const order = [
        at("GET /.well-known/oauth-protected-resource/mcp"),
        at("GET /.well-known/oauth-authorization-server"),
        at("POST /api/oauth/register"),
      ];
      assert.deepEqual(order, [...order].sort((a, b) => a - b));
      const authorizationUrl = provider.authorizationUrl!;
      assert.equal(
        `${authorizationUrl.origin}${authorizationUrl.pathname}`,
        `${live.origin}/oauth/authorize`,
      );
      assert.equal(authorizationUrl.searchParams.get("code_challenge_method"), "S256");
      assert.equal(authorizationUrl.searchParams.get("resource"), mcpUrl.toString());

      // 2. The person signs in and approves; the client exchanges the code.
      const redirect = await signInAndApprove(authorizationUrl, user);
      assert.equal(redirect.searchParams.get("state"), authorizationUrl.searchParams.get("state"));
      const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
      await transport.finishAuth(redirect.searchParams.get("code")!);
      assert.ok(provider.saved?.access_token && provider.saved.refresh_token);
      assert.equal(provider.saved.scope, "write");
      assert.ok(
        live.requests.includes("POST /api/oauth/token"),
        "the code was exchanged at the token endpoint",
      );

      // 3. Connected: instructions, exactly the 15 tools.
      const client = new Client({ name: "svc-sdk-test", version: "1.0.0" });
      clients.push(client);
      await client.connect(transport);
      assert.match(client.getInstructions() ?? "", /svc_status first/);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t: { name: string }) => t.name).sort(), SPEC_TOOLS);

      // 4. A brand-new project: svc_status carries projectSetup.
      const status = ok(await client.callTool({ name: "svc_status", arguments: {} }), "svc_status");
      assert.equal(status.projectSetup?.needed, true);
      ok(
        await client.callTool({
          name: "svc_brief_update",
          arguments: { scope: "A test project driven through MCP", goals: "Prove the tool server" },
        }),
        "svc_brief_update",
      );

      // 5. Create, begin, log, hand off.
      const created = ok(
        await client.callTool({
          name: "svc_ticket_create",
          arguments: {
            title: "Wire the MCP endpoint",
            type: "feature",
            description: "Serve the tools over streamable HTTP",
            riskClass: "local",
            expectedFiles: ["src/routes/mcp.ts"],
            acceptanceCriteria: [{ title: "Tools listed", evidence: "ledger" }],
            doneDefinition: "A real MCP client lists and calls the tools",
            verificationCommand: "deno test tests/mcp/",
          },
        }),
        "svc_ticket_create",
      );
      assert.match(created.id, /^[0-9a-f-]{36}$/);
      const begun = ok(
        await client.callTool({
          name: "svc_ticket_begin",
          arguments: { ticketId: created.id, files: ["src/routes/mcp.ts"], acknowledgeCriteria: true },
        }),
        "svc_ticket_begin",
      );
      assert.equal(begun.ticket.status, "in_progress");
      assert.equal(typeof begun.sessionId, "string");
      for (const [type, content] of [["PROGRESS", "Route mounted at /mcp"], ["TESTED", "tests/mcp pass"]]) {
        const entry = ok(
          await client.callTool({
            name: "svc_ledger_add",
            arguments: { type, content, sessionId: begun.sessionId, ticketId: created.id },
          }),
          "svc_ledger_add",
        );
        assert.ok(entry.id);
      }
      const handedOff = ok(
        await client.callTool({
          name: "svc_handoff",
          arguments: {
            moduleName: "mcp",
            summary: "The tool server answers real MCP clients",
            sessionId: begun.sessionId,
            ticketId: created.id,
          },
        }),
        "svc_handoff",
      );
      assert.equal(handedOff.ok, true);
      assert.equal(handedOff.ticketAdvanced, true);

      // 6. An hour later the access token has expired: the next call meets 401, and the SDK refreshes
      // with the refresh token (no new authorization) and retries.
      const before = { ...provider.saved! };
      const saves = provider.tokenSaves;
      await live.admin("POST", "/clock", { advanceMs: 3601_000 });
      const expired = await fetch(mcpUrl, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${before.access_token}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      await expired.body?.cancel();
      assert.equal(expired.status, 401);
      provider.authorizationUrl = null;
      const again = ok(
        await client.callTool({ name: "svc_ticket_get", arguments: { id: created.id } }),
        "get",
      );
      assert.equal(again.id, created.id);
      assert.notEqual(again.status, "in_progress", "the hand-off moved the ticket on");
      assert.equal(provider.tokenSaves, saves + 1, "refreshed once");
      assert.notEqual(provider.saved!.access_token, before.access_token);
      assert.notEqual(provider.saved!.refresh_token, before.refresh_token, "refresh tokens rotate");
      assert.equal(provider.authorizationUrl, null, "no new authorization");
      assert.equal(
        live.requests.filter((r) => r === "POST /api/oauth/token").length,
        2,
        "one code exchange, one refresh",
      );
    } finally {
      for (const client of clients) await client.close().catch(() => {});
      await live.close();
    }
  },
});
