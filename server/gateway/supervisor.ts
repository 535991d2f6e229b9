// The supervisor: on a timer and on demand (POST /v1/admin/sweep), one pass checks the store,
// renews and takes leases (opening and reconnecting sessions), sends what is due, runs due
// webhook retries, drops expired payloads and evaluates the alert rules.
import type { AlertView, Alerts } from "./alerts/alerts.ts";
import type { DeliveryWorker } from "./deliveries/delivery-worker.ts";
import type { Dispatcher } from "./dispatcher.ts";
import type { Leases } from "./leases.ts";
import type { DeliveryStore } from "./store/deliveries.ts";
import type { GatewayDatabase } from "./store/database.ts";

/** The store must answer a trivial query within this long to count as reachable. */
export const storePingTimeoutMs = 3_000;

export interface SweepResult {
  storeReachable: boolean;
  leases: { held: number; opened: number; released: number; liveReplicas: number } | null;
  messagesAttempted: number;
  deliveriesAttempted: number;
  payloadsExpired: number;
  alerts: AlertView[];
}

export async function storeReachable(database: GatewayDatabase): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), storePingTimeoutMs)));
  try {
    return await Promise.race([database.sql`SELECT 1 AS ok`.then(() => true as const), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export interface SupervisorDeps {
  database: GatewayDatabase;
  leases: Leases;
  dispatcher: Dispatcher;
  deliveryWorker: DeliveryWorker;
  deliveries: DeliveryStore;
  alerts: Alerts;
  intervalMs: number;
  now: () => number;
  log(line: string): void;
}

export class Supervisor {
  private timer: ReturnType<typeof setInterval> | null = null;
  private passing: Promise<SweepResult> | null = null;

  constructor(private readonly deps: SupervisorDeps) {}

  start(): void {
    this.timer = setInterval(() => {
      if (!this.passing) void this.sweep().catch((error: Error) => this.deps.log(`gateway: supervisor pass failed: ${error.message}`));
    }, this.deps.intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** One pass (a sweep asked while one runs waits for it and runs its own after). */
  async sweep(): Promise<SweepResult> {
    while (this.passing) await this.passing.catch(() => {});
    this.passing = this.pass();
    try {
      return await this.passing;
    } finally {
      this.passing = null;
    }
  }

  private async pass(): Promise<SweepResult> {
    const { leases, dispatcher, deliveryWorker, deliveries, alerts, now } = this.deps;
    const reachable = await storeReachable(this.deps.database);
    if (!reachable) return { storeReachable: false, leases: null, messagesAttempted: 0, deliveriesAttempted: 0, payloadsExpired: 0, alerts: await alerts.evaluate(false, []) };
    const leasePass = await leases.pass();
    const messagesAttempted = await dispatcher.run();
    const deliveriesAttempted = await deliveryWorker.run();
    const payloadsExpired = await deliveries.expirePayloads(now());
    return { storeReachable: true, leases: leasePass, messagesAttempted, deliveriesAttempted, payloadsExpired, alerts: await alerts.evaluate(true, await leases.liveReplicas()) };
  }

  /** The rules' state now (GET /v1/admin/alerts), evaluated afresh. */
  async alertsNow(): Promise<AlertView[]> {
    const reachable = await storeReachable(this.deps.database);
    return this.deps.alerts.evaluate(reachable, reachable ? await this.deps.leases.liveReplicas() : []);
  }
}
