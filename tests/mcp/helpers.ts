// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { createForward, type FetchLike, UpstreamFailure, upstreamOutcome } from "@/mcp/forward.ts";
import { toolNamed } from "@/mcp/tools/index.ts";
import type { Forward, RestCall, ToolOutcome } from "@/mcp/types.ts";
import { env } from "../helpers/mod.ts";
import { type OAuthFixture, oauthFixture } from "../oauth/helpers.ts";

/** The test service's app as a `fetch` of Requests (what the MCP route hands the forward in-process). */
export async function appFetch(): Promise<FetchLike> {
  const e = await env();
  return async (request) => {
    const url = new URL(request.url);
    const body = request.body ? await request.text() : undefined;
    return await e.fetch(url.pathname + url.search, {
      method: request.method,
      headers: request.headers,
      body: body ?? null,
    });
  };
}

/** An in-process forward for `bearer`; `calls` records every REST call made through it. */
export async function forwardFor(bearer: string, calls: RestCall[] = []): Promise<Forward> {
  const inner = createForward({ bearer, fetch: await appFetch(), origin: "http://localhost:8787" });
  return (call) => {
    calls.push(call);
    return inner(call);
  };
}

export interface ToolRun {
  outcome: ToolOutcome;
  /** The REST calls the tool made. */
  calls: RestCall[];
  data: any;
  error: any;
  status: number | null;
}

/**
 * Runs a tool the way the MCP server does: arguments parsed by the tool's input schema (defaults applied,
 * refusals thrown), REST through the in-process forward, upstream failures mapped to outcomes. A
 * successful object result must satisfy the tool's output schema, as the SDK will check.
 */
export async function runTool(name: string, args: Record<string, unknown>, bearer: string): Promise<ToolRun> {
  const tool = toolNamed(name);
  if (!tool) throw new Error(`no tool ${name}`);
  const parsed = tool.input.parse(args);
  const calls: RestCall[] = [];
  const forward = await forwardFor(bearer, calls);
  let outcome: ToolOutcome;
  try {
    outcome = await tool.run(parsed, forward);
  } catch (err) {
    if (err instanceof UpstreamFailure) outcome = upstreamOutcome(err);
    else throw err;
  }
  if (outcome.ok && tool.output) {
    const checked = tool.output.safeParse(outcome.data);
    assert.ok(checked.success, `${name} output schema: ${JSON.stringify(checked.error?.issues.slice(0, 3))}`);
  }
  return {
    outcome,
    calls,
    data: outcome.ok ? outcome.data : undefined,
    error: outcome.ok ? undefined : outcome.error,
    status: outcome.ok ? null : outcome.status,
  };
}

/** Runs a tool and fails the test unless it succeeded. */
export async function ok(name: string, args: Record<string, unknown>, bearer: string): Promise<any> {
  const run = await runTool(name, args, bearer);
  assert.ok(run.outcome.ok, `${name}: ${run.status} ${JSON.stringify(run.error)}`);
  return run.data;
}

export interface Member extends OAuthFixture {
  /** A write-scope access token. */
  token: string;
}

/** A fresh project with a member holding a write token. */
export async function member(options: { memberRole?: string } = {}): Promise<Member> {
  const f = await oauthFixture(options);
  return { ...f, token: await f.mint("write") };
}

/** A valid svc_ticket_create argument set. */
export function ticketArgs(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: "Add login form validation",
    type: "feature",
    description: "Validate the email and password fields before submitting",
    riskClass: "local",
    expectedFiles: ["src/auth/login.ts"],
    acceptanceCriteria: [{ title: "Invalid emails show an inline error", evidence: "pr" }],
    doneDefinition: "Invalid emails show an inline error and the form cannot be submitted",
    verificationCommand: "deno test tests/auth/",
    ...overrides,
  };
}

/** A member whose project has a brief (so tickets can be created). */
export async function memberWithBrief(options: { memberRole?: string } = {}): Promise<Member> {
  const m = await member(options);
  await ok("svc_brief_update", { scope: "A login service", goals: "Ship the login form" }, m.token);
  return m;
}
