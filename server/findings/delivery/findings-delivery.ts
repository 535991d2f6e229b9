// What the region service starts for findings delivery: the dispatcher (the RegionNode's
// `findings`) and its runner over the node's region.sqlite, wired so a queued finding is sent at
// once. `stop()` before the store is closed.
import type { RegionStore } from "../../../storage/region-store.ts";
import { DeliveryRunner } from "./delivery-runner.ts";
import { FindingsOutbox } from "./findings-outbox.ts";
import type { DeliveryFetch } from "./post-delivery.ts";

export interface FindingsDeliveryOptions {
  now?: () => number;
  fetch?: DeliveryFetch;
  timeoutMs?: number;
  log?: (line: string) => void;
  /** false: no timers (tests drive the runner with runDue). */
  start?: boolean;
}

export interface FindingsDelivery {
  outbox: FindingsOutbox;
  runner: DeliveryRunner;
  stop(): Promise<void>;
}

export function startFindingsDelivery(store: Pick<RegionStore, "findingsOutbox" | "findingsConfig">, options: FindingsDeliveryOptions = {}): FindingsDelivery {
  const runner = new DeliveryRunner(store.findingsOutbox, store.findingsConfig, options);
  const outbox = new FindingsOutbox(store.findingsOutbox, store.findingsConfig, { ...options, onQueued: () => runner.kick() });
  if (options.start !== false) runner.start();
  return { outbox, runner, stop: () => runner.stop() };
}
