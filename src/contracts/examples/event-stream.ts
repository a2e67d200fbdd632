/** Examples of the event stream (GET /events/stream). */
import type { ExampleTable } from "./types.ts";

export const eventStreamExamples: ExampleTable = {
  "GET /events/stream": {
    responses: {
      200: "retry: 1000\n\n" +
        "id: ZXYxLmQyMzVjNjA5LjM\n" +
        'data: {"seq":3,"kind":"ticket.moved","entityType":"ticket",' +
        '"entityId":"0c6f1f0e-51c4-4a53-a3c9-2fb0b6f1d5a1","agentId":"dbece4ea-d293-4a94-b183-a9eb073465b8",' +
        '"data":{"from":"todo","to":"in_progress"},"createdAt":"2026-11-26T23:02:10.512Z"}\n\n' +
        ": heartbeat\n\n",
      429: {
        error: {
          code: "TOO_MANY_STREAMS",
          message: "Cannot open another event stream: this agent already has 3 open (limit 3)",
          details: {
            limit: 3,
            open: 3,
            recovery: {
              action: "RETRY",
              endpoint: "GET /events/stream",
              payloadHint: null,
              hint: "Close one of your open streams, then open this one",
            },
          },
        },
      },
    },
  },
};
