// The gateway's Prometheus metrics (prom-client, a registry of its own so two gateways in one
// process never share counters). Counters count what this replica did; the queue, dead-letter
// and instance gauges are read from the store at scrape time, so every replica reports the
// deployment's state and this replica's sessions and leases.
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { DeliveryStore } from "./store/deliveries.ts";
import type { MessageStore } from "./store/messages.ts";
import type { ProjectStore } from "./store/projects.ts";

/** Seconds from an inbound event's arrival to its webhook's 2xx. */
const deliveryLatencyBucketsSeconds = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3_600, 21_600];

export interface MetricsSources {
  replica: string;
  projects: ProjectStore;
  messages: MessageStore;
  deliveries: DeliveryStore;
  now: () => number;
  connectedInstances(): number;
  heldLeases(): number;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly sentTotal: Counter<"project">;
  private readonly failedTotal: Counter<"project">;
  private readonly receivedTotal: Counter<"project">;
  private readonly deliveryAttempts: Counter<"project" | "outcome">;
  private readonly deliveryLatency: Histogram<"project">;

  constructor(private readonly sources: MetricsSources) {
    const registers = [this.registry];
    this.sentTotal = new Counter({ name: "gateway_messages_sent_total", help: "Messages the network accepted, by project", labelNames: ["project"], registers });
    this.failedTotal = new Counter({ name: "gateway_messages_failed_total", help: "Messages that failed for good, by project", labelNames: ["project"], registers });
    this.receivedTotal = new Counter({ name: "gateway_messages_received_total", help: "Inbound messages stored for delivery, by project", labelNames: ["project"], registers });
    this.deliveryAttempts = new Counter({ name: "gateway_delivery_attempts_total", help: "Webhook delivery attempts by outcome (delivered, failed, dead)", labelNames: ["project", "outcome"], registers });
    this.deliveryLatency = new Histogram({ name: "gateway_delivery_latency_seconds", help: "From an event's arrival to its webhook's 2xx", labelNames: ["project"], buckets: deliveryLatencyBucketsSeconds, registers });
    const store = this.sources;
    new Gauge({
      name: "gateway_send_queue_depth",
      help: "Messages queued or being sent, by project",
      labelNames: ["project"],
      registers,
      collect: async function () {
        this.reset();
        for (const row of await store.messages.countsByState(null)) if (row.state === "queued" || row.state === "sending") this.inc({ project: row.projectId }, row.count);
      },
    });
    new Gauge({
      name: "gateway_send_queue_oldest_age_seconds",
      help: "Age of the oldest message waiting to be sent, by project",
      labelNames: ["project"],
      registers,
      collect: async function () {
        this.reset();
        for (const row of await store.messages.oldestOpen()) this.set({ project: row.projectId }, (store.now() - row.createdAt) / 1_000);
      },
    });
    new Gauge({
      name: "gateway_dead_letters",
      help: "Deliveries in the dead-letter queue, by project",
      labelNames: ["project"],
      registers,
      collect: async function () {
        this.reset();
        for (const row of await store.deliveries.countsByState(null)) if (row.state === "dead") this.inc({ project: row.projectId }, row.count);
      },
    });
    new Gauge({
      name: "gateway_project_info",
      help: "Each project's name (join on the project label)",
      labelNames: ["project", "name"],
      registers,
      collect: async function () {
        this.reset();
        for (const project of await store.projects.list(10_000, null)) this.set({ project: project.id, name: project.name }, 1);
      },
    });
    new Gauge({
      name: "gateway_instances_connected",
      help: "Sessions this replica holds open",
      labelNames: ["replica"],
      registers,
      collect() {
        this.set({ replica: store.replica }, store.connectedInstances());
      },
    });
    new Gauge({
      name: "gateway_leases_held",
      help: "Number leases this replica holds",
      labelNames: ["replica"],
      registers,
      collect() {
        this.set({ replica: store.replica }, store.heldLeases());
      },
    });
  }

  sent(projectId: string): void {
    this.sentTotal.inc({ project: projectId });
  }

  failed(projectId: string): void {
    this.failedTotal.inc({ project: projectId });
  }

  received(projectId: string): void {
    this.receivedTotal.inc({ project: projectId });
  }

  deliveryAttempt(projectId: string, outcome: "delivered" | "failed" | "dead", createdAt: number): void {
    this.deliveryAttempts.inc({ project: projectId, outcome });
    if (outcome === "delivered") this.deliveryLatency.observe({ project: projectId }, (this.sources.now() - createdAt) / 1_000);
  }

  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
