import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "@/http/env.ts";
import { registerBrief } from "./brief.ts";
import { registerClaims } from "./claims.ts";
import { registerContext } from "./context.ts";
import { registerEvents } from "./events.ts";
import { registerEventStream } from "./event-stream.ts";
import { registerHandoff } from "./handoff.ts";
import { registerLedger } from "./ledger.ts";
import { registerLedgerCheckpoints } from "./ledger-checkpoints.ts";
import { registerMe } from "./me.ts";
import { registerPairing } from "./pairing.ts";
import { registerReleaseRequests } from "./release-requests.ts";
import { registerSessions } from "./sessions.ts";
import { registerSkill } from "./skill.ts";
import { registerSprints } from "./sprints.ts";
import { registerThreads } from "./threads.ts";
import { registerTickets } from "./tickets.ts";
import { registerWorkflow } from "./workflow.ts";

/** Every REST route, area by area. Each area owns one `registerX(api)` in its own file. */
export function registerRoutes(api: OpenAPIHono<AppEnv>): void {
  registerPairing(api);
  registerMe(api);
  registerSessions(api);
  registerTickets(api);
  registerWorkflow(api);
  registerClaims(api);
  registerReleaseRequests(api);
  registerLedger(api);
  registerLedgerCheckpoints(api);
  registerHandoff(api);
  registerBrief(api);
  registerThreads(api);
  registerSprints(api);
  registerContext(api);
  registerEvents(api);
  registerEventStream(api);
  registerSkill(api);
}
