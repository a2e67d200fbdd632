/**
 * The whole agent loop through the typed client, from pairing to a ticket in `done`, with two agents: a
 * generator that does the work and an evaluator that approves it.
 *
 *   deno run --allow-net examples/agent-loop.ts <origin> <generator pairing code> <evaluator pairing code>
 *
 * Another project imports the client as `@svc/coordination/client` (deno.json `exports`); here it is the
 * file itself; Node projects install the package `deno task sdk` builds. Each method is an operationId of the
 * OpenAPI document; every call returns `{ data, error, response }`; `error` carries the recovery hint.
 */
import { createClient, type SvcApi } from "../generated/client.ts";

const [origin = "http://localhost:8787", generatorCode, evaluatorCode] = Deno.args;
if (!generatorCode || !evaluatorCode) {
  console.error("usage: agent-loop.ts <origin> <generator pairing code> <evaluator pairing code>");
  Deno.exit(2);
}
const baseUrl = `${origin}/api`;

/** Stops with the service's error (code, message, recovery) when a call fails. */
function ok<T>(step: string, res: { data?: T; error?: unknown; response: Response }): T {
  if (!res.response.ok || res.data === undefined) {
    throw new Error(`${step}: ${res.response.status} ${JSON.stringify(res.error)}`);
  }
  console.log(`${step}: ${res.response.status}`);
  return res.data;
}

async function pair(code: string, agentName: string): Promise<{ api: SvcApi; sessionId: string }> {
  const anonymous = createClient({ baseUrl });
  const paired = ok(
    "pair " + agentName,
    await anonymous.postPairConnect({ body: { code, agentName } }),
  );
  return {
    api: createClient({ baseUrl, token: paired.data.sessionToken }),
    sessionId: paired.data.sessionId,
  };
}

// 1. The generator pairs; its session token authenticates every later call.
const gen = await pair(generatorCode, "generator");
// 2. The project brief says what the project is for.
ok("brief", await gen.api.patchBrief({ body: { scope: "A login page for the demo app" } }));
// 3. A ticket with acceptance criteria (begin refuses a ticket without them).
const ticket = ok(
  "ticket",
  await gen.api.postTicket({
    body: {
      title: "Login form",
      expectedFiles: ["src/login.ts"],
      doneDefinition: "A user can sign in with email and password",
      verificationCommand: "deno test src/login.test.ts",
      riskClass: "local",
      acceptanceCriteria: [{ title: "Valid credentials sign in", requiresEvidence: true }],
    },
  }),
).data;
// 4. Begin: takes the ticket, claims its files, acknowledges the criteria.
ok(
  "begin",
  await gen.api.postBegin({
    body: { ticketId: ticket.id, files: ["src/login.ts"], acknowledgeCriteria: true },
  }),
);
// 5. The ledger: what was done and how it was tested (a TESTED entry is needed for review).
for (
  const [type, content] of [["PROGRESS", "Built the login form"], ["TESTED", "deno test: 6 passed"]] as const
) {
  ok(
    `ledger ${type}`,
    await gen.api.postLedger({ body: { type, content, sessionId: gen.sessionId, ticketId: ticket.id } }),
  );
}
// 6. Handoff: the ticket moves to review, claims are released, and this session token stops working.
const handoff = ok(
  "handoff",
  await gen.api.postHandoff({
    body: {
      moduleName: "login",
      summary: "Login form",
      sessionId: gen.sessionId,
      ticketId: ticket.id,
      testResults: "6 passed",
    },
  }),
).data;
console.log(
  `ticket ${ticket.ticketRef} is ${handoff.review?.ticketStatus}; generator token now: ${
    (await gen.api.getMe()).response.status
  }`,
);
// 7. The evaluator pairs, reads the ticket, and approves it.
const evaluator = await pair(evaluatorCode, "evaluator");
const read =
  ok("review", await evaluator.api.getTicket({ params: { query: { key: ticket.ticketRef } } })).data;
const approved = ok(
  "approve",
  await evaluator.api.postTicketApprove({
    params: { path: { ticketId: read.id } },
    body: {},
  }),
).data;
console.log(`ticket ${ticket.ticketRef} is ${approved.status}`);
