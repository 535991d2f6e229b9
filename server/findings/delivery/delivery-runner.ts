// Sends the outbox's due deliveries: a pass takes up to deliveriesPerPassMax of them, posts at
// most deliveryConcurrencyMax at a time, and logs each attempt with the delivery's next state in
// one transaction (schedule.ts says when a failure is tried again). Passes never overlap; a
// timer (unref'd: it never keeps the process alive) wakes the runner when the next retry is
// due, and a queued finding kicks it. Nothing is marked before it is sent, so a delivery in
// flight when the process is killed is still pending when the file is reopened and is sent again
// (at least once: receivers drop the repeat by its webhook-id).
import type { FindingsConfigStore } from "../../../storage/findings-config-store.ts";
import type { FindingsOutboxStore, OutboxDelivery, OutboxState } from "../../../storage/findings-outbox.ts";
import { PassLoop } from "../../pass-loop.ts";
import type { RegionFindingsDestination } from "../findings-types.ts";
import { deliveryTimeoutMs, postDelivery, type DeliveryFetch, type DeliveryOutcome } from "./post-delivery.ts";
import { deliveryAttemptsMax, nextAttemptAt, retryAfterMs } from "./schedule.ts";

/** Deliveries taken per pass. */
export const deliveriesPerPassMax = 50;
/** Attempts in flight at once (a pass posts its deliveries this many at a time). */
export const deliveryConcurrencyMax = 8;
/** How often the runner looks at the outbox even when no timer is due (a safety net for a missed wake). */
export const deliverySweepIntervalMs = 60_000;

export interface DeliveryRunnerOptions {
  now?: () => number;
  fetch?: DeliveryFetch;
  timeoutMs?: number;
  log?: (line: string) => void;
}

type Settled = { state: OutboxState; nextAttemptAt: number | null };

export class DeliveryRunner {
  private readonly now: () => number;
  private readonly fetch: DeliveryFetch;
  private readonly timeoutMs: number;
  private readonly log: (line: string) => void;
  private readonly loop: PassLoop;
  private readonly stopping = new AbortController();
  /** Passes (from the loop or runDue) one after another. */
  private exclusive: Promise<unknown> = Promise.resolve();
  private wakeTimer: ReturnType<typeof setTimeout> | null = null;
  private sweepTimer: ReturnType<typeof setInterval> | null = null;
  private started = false;

  constructor(
    private readonly outbox: FindingsOutboxStore,
    private readonly config: FindingsConfigStore,
    options: DeliveryRunnerOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.fetch = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? deliveryTimeoutMs;
    this.log = options.log ?? ((line) => console.error(line));
    this.loop = new PassLoop(
      () => this.serially(() => this.pass(this.now())),
      (error) => this.log(`findings: delivery pass failed (retried at the next pass): ${error.message}`),
    );
  }

  /** Sends what is due now and from then on by the timers; returns at once. */
  start(): void {
    if (this.started || this.stopping.signal.aborted) return;
    this.started = true;
    this.sweepTimer = setInterval(() => this.kick(), deliverySweepIntervalMs);
    this.sweepTimer.unref();
    this.kick();
  }

  /** Asks for a pass now (a finding was queued); nothing before start(). */
  kick(): void {
    if (!this.started || this.stopping.signal.aborted) return;
    void this.loop
      .run()
      .then(() => this.scheduleWake())
      .catch((error: Error) => this.log(`findings: delivery timer not set (the next sweep sets it): ${error.message}`));
  }

  /** Passes at `nowMs` until nothing more is due then; resolves with the attempts made (tests drive the clock with it). */
  async runDue(nowMs: number): Promise<number> {
    let done = 0;
    for (;;) {
      const result = await this.serially(() => this.pass(nowMs));
      done += result.done;
      if (!result.more) return done;
    }
  }

  /** Stops the timers and aborts the attempts in flight (not logged: they stay pending and are sent again after a restart). */
  async stop(): Promise<void> {
    this.stopping.abort();
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.wakeTimer = null;
    this.sweepTimer = null;
    await this.exclusive.catch(() => {});
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.exclusive.then(work, work);
    this.exclusive = next.catch(() => {});
    return next;
  }

  private scheduleWake(): void {
    if (!this.started || this.stopping.signal.aborted) return;
    const at = this.outbox.nextDueAt();
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    if (at === null) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      this.kick();
    }, Math.max(0, at - this.now()));
    this.wakeTimer.unref();
  }

  private async pass(nowMs: number): Promise<{ done: number; more: boolean }> {
    // A kick that came in while stopping asks for one more pass: the store may be closed by now.
    if (this.stopping.signal.aborted) return { done: 0, more: false };
    const due = this.outbox.due(nowMs, deliveriesPerPassMax);
    let next = 0;
    const worker = async () => {
      while (next < due.length && !this.stopping.signal.aborted) await this.attempt(due[next++]!, nowMs);
    };
    await Promise.all(Array.from({ length: Math.min(deliveryConcurrencyMax, due.length) }, worker));
    return { done: due.length, more: due.length === deliveriesPerPassMax && !this.stopping.signal.aborted };
  }

  private async attempt(delivery: OutboxDelivery, nowMs: number): Promise<void> {
    const attempt = delivery.attempts + 1;
    const at = new Date(nowMs).toISOString();
    const destination = this.destination(delivery);
    const outcome: DeliveryOutcome =
      typeof destination === "string"
        ? { ok: false, status: null, error: destination, retryAfter: null, durationMs: 0, interrupted: false }
        : await postDelivery(
            { kind: delivery.kind, url: destination.secret!, signingSecret: destination.signing_secret, id: delivery.id, body: delivery.body },
            { fetch: this.fetch, timeoutMs: this.timeoutMs, stop: this.stopping.signal },
          );
    if (outcome.interrupted || this.stopping.signal.aborted) return;
    let settled: Settled;
    if (outcome.ok) settled = { state: "delivered", nextAttemptAt: null };
    else if (typeof destination === "string") settled = { state: "failed", nextAttemptAt: null };
    else {
      const retryAt = attempt >= deliveryAttemptsMax ? null : nextAttemptAt(attempt, outcome.status, retryAfterMs(outcome.status, outcome.retryAfter, nowMs), nowMs);
      settled = retryAt === null ? { state: "failed", nextAttemptAt: null } : { state: "pending", nextAttemptAt: retryAt };
    }
    this.outbox.recordAttempt(delivery.id, { attempt, at, status: outcome.status, ok: outcome.ok, error: outcome.error, durationMs: outcome.durationMs }, settled);
    if (!outcome.ok) {
      const what = settled.state === "failed" ? "failed for good" : `retried at ${new Date(settled.nextAttemptAt!).toISOString()}`;
      this.log(`findings: delivery ${delivery.id} of finding ${delivery.findingId} to destination ${delivery.destinationId}, attempt ${attempt}: ${outcome.error} (${what})`);
    }
  }

  /** The destination as it is now (a removed, disabled or URL-less one fails the delivery: the string says why). */
  private destination(delivery: OutboxDelivery): RegionFindingsDestination | string {
    const project = this.config.project(delivery.projectId);
    if (!project) return "the project's findings configuration was removed";
    const destination = project.destinations.find((entry) => entry.id === delivery.destinationId);
    if (!destination) return "the destination was removed";
    if (!destination.enabled) return "the destination was disabled";
    if (destination.secret === null || destination.secret === "") return "the destination has no URL";
    return destination;
  }
}
