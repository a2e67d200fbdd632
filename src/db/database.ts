import type { Kysely, Transaction } from "kysely";
import type { FoundationTables } from "./tables/foundation.ts";
import type { WorkTables } from "./tables/work.ts";
import type { SessionsTables } from "./tables/sessions.ts";
import type { TicketsTables } from "./tables/tickets.ts";
import type { WorkflowTables } from "./tables/workflow.ts";
import type { ClaimsTables } from "./tables/claims.ts";
import type { ReleaseRequestsTables } from "./tables/release-requests.ts";
import type { LedgerTables } from "./tables/ledger.ts";
import type { HandoffTables } from "./tables/handoff.ts";
import type { SharedTables } from "./tables/shared.ts";
import type { ContextTables } from "./tables/context.ts";
import type { InstancesTables } from "./tables/instances.ts";
import type { OAuthKeysTables } from "./tables/oauth-keys.ts";
import type { OAuthClientsTables } from "./tables/oauth-clients.ts";
import type { OAuthTokensTables } from "./tables/oauth-tokens.ts";
import type { WebhooksTables } from "./tables/webhooks.ts";
import type { CountsTables } from "./tables/counts.ts";

/** Every table of the service. Each area keeps its own additions in tables/<area>.ts. */
export interface Database
  extends
    FoundationTables,
    WorkTables,
    SessionsTables,
    TicketsTables,
    WorkflowTables,
    ClaimsTables,
    ReleaseRequestsTables,
    LedgerTables,
    HandoffTables,
    SharedTables,
    ContextTables,
    InstancesTables,
    OAuthKeysTables,
    OAuthClientsTables,
    OAuthTokensTables,
    WebhooksTables,
    CountsTables {}

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** Repository functions take either the database or an open transaction. */
export type DbOrTrx = Kysely<Database> | Transaction<Database>;
