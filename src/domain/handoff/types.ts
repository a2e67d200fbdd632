/**
 * The types of a handoff shared by its verb (handoff.ts), its plan (plan.ts) and its writes (write.ts),
 * in a file of their own so that those three import each other one way only (issue 23 point 1).
 */
import type { z } from "zod";
import type { ArtifactInput, HandoffBody, HandoffData } from "@/contracts/handoff.ts";

/** An artifact of POST /handoff's body. */
export type HandoffArtifact = z.output<typeof ArtifactInput>;

/** POST /handoff's body, as the route has parsed it. */
export type HandoffInput = z.output<typeof HandoffBody>;

/** What POST /handoff answers (its `data`). */
export type HandoffResult = z.output<typeof HandoffData>;
