// Posts stored events to each project's webhook, signed with its current webhookSecret. What is
// due is claimed in the store (per conversation only the oldest open delivery, so order holds
// while one retries); a 2xx delivers it, anything else (status, time-out, refused connection)
// schedules the next retry, and after the last one the delivery is dead.
import type { Metrics } from "../metrics.ts";
import type { DeliveryStore, GatewayDelivery } from "../store/deliveries.ts";
import type { ProjectStore } from "../store/projects.ts";
import { nextDeliveryAttempt } from "./schedule.ts";
import { signedHeaders } from "../../http/standard-webhooks.ts";
import { PassLoop } from "../../pass-loop.ts";
import { Wake } from "../wake.ts";

/** Deliveries claimed per pass; they are posted in parallel (each conversation's head only). */
export const deliveryBatchMax = 200;
/** A receiver's error text kept on the row, at most. */
export const deliveryErrorLengthMax = 500;

export interface DeliveryWorkerDeps {
  replica: string;
  deliveries: DeliveryStore;
  projects: ProjectStore;
  metrics: Metrics;
  now: () => number;
  timeoutMs: number;
  log(line: string): void;
}

export class DeliveryWorker {
  private readonly loop: PassLoop;
  private readonly wake: Wake;

  constructor(private readonly deps: DeliveryWorkerDeps) {
    this.wake = new Wake(deps.now, () => this.kick());
    // A delivered head lets its conversation's next one go at once: pass again while any was tried.
    this.loop = new PassLoop(
      async () => {
        const made = await this.pass();
        return { done: made, more: made > 0 };
      },
      (error) => deps.log(`gateway: delivery pass failed: ${error.message}`),
    );
  }

  kick(): void {
    this.loop.kick();
  }

  /** Passes until nothing more is due now; resolves with the attempts made. */
  run(): Promise<number> {
    return this.loop.run();
  }

  private async pass(): Promise<number> {
    const { deliveries, now, replica } = this.deps;
    // The claim outlives the receiver's time-out, so no other replica posts the same delivery meanwhile.
    const claimed = await deliveries.claimDue(replica, now(), this.deps.timeoutMs * 2, deliveryBatchMax);
    const secrets = new Map<string, { url: string | null; secret: string | null }>();
    for (const delivery of claimed) {
      if (!secrets.has(delivery.projectId)) secrets.set(delivery.projectId, await this.deps.projects.webhookTarget(delivery.projectId));
    }
    const delivered: { id: string; status: number }[] = [];
    await Promise.all(claimed.map((delivery) => this.attempt(delivery, secrets.get(delivery.projectId)!, delivered)));
    // The delivered ones in one statement per status: on SQLite each statement waits for its own fsync.
    for (const status of new Set(delivered.map((entry) => entry.status))) {
      await deliveries.settleDelivered(delivered.filter((entry) => entry.status === status).map((entry) => entry.id), replica, status, now());
    }
    return claimed.length;
  }

  /** Posts one delivery; a 2xx is added to `delivered` (settled with the pass's others), a failure settled now. */
  private async attempt(delivery: GatewayDelivery, target: { url: string | null; secret: string | null }, delivered: { id: string; status: number }[]): Promise<void> {
    const { deliveries, now, replica, metrics } = this.deps;
    const outcome = await this.post(delivery, target);
    if (outcome.ok) {
      delivered.push({ id: delivery.id, status: outcome.status });
      metrics.deliveryAttempt(delivery.projectId, "delivered", delivery.createdAt);
      return;
    }
    const next = nextDeliveryAttempt(delivery.attempts + 1, now());
    const lastError = outcome.error.slice(0, deliveryErrorLengthMax);
    if (next === null) {
      await deliveries.settle(delivery.id, replica, { state: "dead", lastError, lastStatus: outcome.status, nextAttemptAt: now() }, now());
      metrics.deliveryAttempt(delivery.projectId, "dead", delivery.createdAt);
      return;
    }
    await deliveries.settle(delivery.id, replica, { state: "retrying", lastError, lastStatus: outcome.status, nextAttemptAt: next }, now());
    metrics.deliveryAttempt(delivery.projectId, "failed", delivery.createdAt);
    this.wake.request(next);
  }

  private async post(delivery: GatewayDelivery, target: { url: string | null; secret: string | null }): Promise<{ ok: true; status: number } | { ok: false; status: number | null; error: string }> {
    if (delivery.payload === null) return { ok: false, status: null, error: "the payload expired before it could be delivered" };
    if (target.url === null || target.secret === null) return { ok: false, status: null, error: "the project has no webhook URL" };
    // The wall clock, not the schedule's: receivers reject a timestamp far from their own clock.
    const headers = { ...signedHeaders(target.secret, delivery.id, Math.floor(Date.now() / 1_000), delivery.payload), "webhook-attempt": String(delivery.attempts + 1) };
    try {
      const response = await fetch(target.url, { method: "POST", headers, body: delivery.payload, redirect: "manual", signal: AbortSignal.timeout(this.deps.timeoutMs) });
      const text = await response.text().catch(() => "");
      if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
      return { ok: false, status: response.status, error: `HTTP ${response.status}${text ? `: ${text.replace(/\s+/g, " ").trim()}` : ""}` };
    } catch (error) {
      const name = (error as Error).name;
      const error_ = name === "TimeoutError" || name === "AbortError" ? `no answer within ${this.deps.timeoutMs} ms` : `could not connect: ${(error as Error).message}`;
      return { ok: false, status: null, error: error_ };
    }
  }


  stop(): void {
    this.wake.stop();
  }
}
