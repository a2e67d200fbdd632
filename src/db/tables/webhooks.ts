import type { ColumnType, Generated } from "kysely";
import type { Json, JsonDefault, NullableTimestamp, Timestamp } from "./types.ts";

/** One attempt of a delivery, as the delivery's `attempt_log` keeps it (newest last). */
export interface WebhookAttempt {
  at: string;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** A webhook endpoint of a project, or a partner endpoint of an organisation (migration 0025). */
export interface WebhookEndpointsTable {
  id: string;
  project_id: string | null;
  org_id: string | null;
  url: string;
  events: Json<string[]>;
  description: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: NullableTimestamp;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  failing_since: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The outbox: one row per event and endpoint, written by the `webhook_outbox` trigger. */
export interface WebhookDeliveriesTable {
  id: Generated<string>;
  /** Insertion order (bigint, read as string): deliveries of one endpoint go out in this order. */
  n: ColumnType<string, never, never>;
  endpoint_id: string;
  project_id: string;
  seq: ColumnType<string, number | string, number | string>;
  kind: string;
  status: Generated<"pending" | "delivered" | "failed">;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  lease_until: NullableTimestamp;
  last_status: number | null;
  last_error: string | null;
  attempt_log: JsonDefault<WebhookAttempt[]>;
  delivered_at: NullableTimestamp;
  created_at: Timestamp;
}

/** Tables added by migration 0025 (webhooks). */
export interface WebhooksTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
