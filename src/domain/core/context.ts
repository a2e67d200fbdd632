import type { Clock } from "@/clock.ts";
import type { Db } from "@/db/database.ts";
import type { Actor } from "./actor.ts";

/** What every domain verb needs besides its input. Built once per request by the surface. */
export interface ServiceCtx {
  db: Db;
  clock: Clock;
  /** Origin as clients see it (`PUBLIC_URL`); every URL the service returns derives from it. */
  publicUrl: string;
}

export interface ActorCtx extends ServiceCtx {
  actor: Actor;
}
