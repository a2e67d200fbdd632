import { markWebhooksActive } from "./active.ts";
import { deliverDueWebhooks, type DeliveryDeps } from "./deliver.ts";

/**
 * Starts a delivery round in the background unless one runs (then one more follows it), so an event is
 * delivered right after the request that wrote it rather than at the next timer round. Errors are left
 * to the timer's round (src/worker.ts), which runs the same work.
 */
export function kickWebhookDelivery(deps: DeliveryDeps): void {
  const state = markWebhooksActive(deps.db);
  if (state.running) {
    state.again = true;
    return;
  }
  const round = async () => {
    do {
      state.again = false;
      await deliverDueWebhooks(deps);
    } while (state.again);
  };
  state.running = round().catch(() => {}).finally(() => {
    state.running = null;
  });
}
