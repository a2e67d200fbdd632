import { ERROR_EXAMPLES } from "../common.ts";
import { claimExamples } from "./claims.ts";
import { contextExamples } from "./context.ts";
import { eventStreamExamples } from "./event-stream.ts";
import { handoffExamples } from "./handoff.ts";
import { ledgerExamples } from "./ledger.ts";
import { ledgerCheckpointExamples } from "./ledger-checkpoints.ts";
import { oauthExamples } from "./oauth.ts";
import { pairingExamples } from "./pairing.ts";
import { releaseRequestExamples } from "./release-requests.ts";
import { sprintExamples } from "./sprints.ts";
import { threadExamples } from "./threads.ts";
import { ticketExamples } from "./tickets.ts";
import type { ExampleTable } from "./types.ts";

export type { ExampleTable, OperationExamples } from "./types.ts";

/** Every operation's examples, keyed `METHOD /path`. */
export const OPERATION_EXAMPLES: ExampleTable = {
  ...pairingExamples,
  ...ticketExamples,
  ...contextExamples,
  ...eventStreamExamples,
  ...claimExamples,
  ...releaseRequestExamples,
  ...ledgerExamples,
  ...ledgerCheckpointExamples,
  ...handoffExamples,
  ...threadExamples,
  ...sprintExamples,
  ...oauthExamples,
};

interface Media {
  schema?: unknown;
  example?: unknown;
  examples?: unknown;
}
/** The parts of a route config this module reads and writes. */
interface Documented {
  method: string;
  path: string;
  request?: { body?: { content?: Record<string, Media> } };
  responses: Record<string, { content?: Record<string, Media> }>;
}

/** Puts the example on every content type of a body or response (copies: error contents are shared). */
function withExample<T extends { content?: Record<string, Media> }>(target: T, example: unknown): T {
  if (!target.content) return target;
  const content = Object.fromEntries(
    Object.entries(target.content).map(([type, media]) => {
      const { examples: _generic, ...rest } = media;
      return [type, { ...rest, example }];
    }),
  );
  return { ...target, content };
}

/**
 * The route with its examples from OPERATION_EXAMPLES set on its request body and on each response whose
 * status they show (an operation's own error example replaces the generic one of its status).
 */
export function withExamples<R extends { method: string; path: string }>(config: R): R {
  const route = config as unknown as Documented;
  const examples = OPERATION_EXAMPLES[`${route.method.toUpperCase()} ${route.path}`];
  if (!examples) return config;
  const responses = { ...route.responses };
  for (const [status, example] of Object.entries(examples.responses)) {
    const response = responses[status];
    if (!response) throw new Error(`example for ${route.method} ${route.path} ${status}: no such response`);
    responses[status] = withExample(response, example);
  }
  const body = route.request?.body;
  const request = body && examples.request !== undefined
    ? { ...route.request, body: withExample(body, examples.request) }
    : route.request;
  return { ...route, ...(request ? { request } : {}), responses } as unknown as R;
}

/** `components/examples`: the generic answer of each error status (`Error<status>`). */
export function errorExampleComponents(): [string, { summary: string; value: unknown }][] {
  return Object.entries(ERROR_EXAMPLES).map(([status, example]) => [`Error${status}`, example]);
}
