import type { Kysely } from "kysely";
import { runStatements } from "./run-statements.ts";

/**
 * Outbound webhooks (issue 26): endpoints per project (or per organisation for partner endpoints) and
 * the outbox of deliveries. The outbox is filled by a trigger on `events`, so a delivery row commits in
 * the very transaction of its event (or not at all), whatever verb wrote the event, and events raised
 * while an endpoint is disabled queue nothing for it.
 *
 * An endpoint's `events` are kinds (`ticket.moved`), prefixes with a wildcard (`claim.*`) or `*`. A
 * partner endpoint (`org_id`) receives the events of the organisation's projects whose acting agent gave
 * a `partnerManagedSessionId` at pairing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await runStatements(db, [
    `CREATE TABLE webhook_endpoints (
      id uuid PRIMARY KEY,
      project_id uuid REFERENCES projects(id) ON DELETE CASCADE,
      org_id uuid REFERENCES organizations(id) ON DELETE CASCADE,
      url text NOT NULL,
      events jsonb NOT NULL,
      description text,
      secret text NOT NULL,
      previous_secret text,
      previous_secret_until timestamptz,
      enabled boolean NOT NULL DEFAULT true,
      disabled_reason text,
      failing_since timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      CHECK ((project_id IS NULL) <> (org_id IS NULL))
    )`,
    `CREATE INDEX webhook_endpoints_project ON webhook_endpoints (project_id) WHERE enabled`,
    `CREATE INDEX webhook_endpoints_org ON webhook_endpoints (org_id) WHERE enabled`,
    `CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      n bigint GENERATED ALWAYS AS IDENTITY,
      endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
      project_id uuid NOT NULL,
      seq bigint NOT NULL,
      kind text NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','delivered','failed')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL,
      lease_until timestamptz,
      last_status integer,
      last_error text,
      attempt_log jsonb NOT NULL DEFAULT '[]'::jsonb,
      delivered_at timestamptz,
      created_at timestamptz NOT NULL,
      UNIQUE (endpoint_id, project_id, seq)
    )`,
    `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (endpoint_id, n) WHERE status = 'pending'`,
    `CREATE INDEX webhook_deliveries_done ON webhook_deliveries (created_at) WHERE status <> 'pending'`,
    `CREATE FUNCTION webhook_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO webhook_deliveries (endpoint_id, project_id, seq, kind, next_attempt_at, created_at)
      SELECT e.id, NEW.project_id, NEW.seq, NEW.kind, NEW.created_at, NEW.created_at
      FROM webhook_endpoints e
      WHERE e.enabled
        AND (e.project_id = NEW.project_id
          OR (e.org_id IS NOT NULL AND NEW.agent_id IS NOT NULL
            AND e.org_id = (SELECT p.org_id FROM projects p WHERE p.id = NEW.project_id)
            AND EXISTS (SELECT 1 FROM agents a WHERE a.id = NEW.agent_id
              AND a.partner_managed_session_id IS NOT NULL)))
        AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(e.events) AS p(pattern)
          WHERE p.pattern = '*' OR p.pattern = NEW.kind
            OR (right(p.pattern, 2) = '.*' AND starts_with(NEW.kind, left(p.pattern, -1))));
      RETURN NULL;
    END $$`,
    `CREATE TRIGGER webhook_outbox AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION webhook_outbox()`,
  ]);
}
