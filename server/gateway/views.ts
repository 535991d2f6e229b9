// Read models over the store: a project's pool (which numbers can send now and why each other
// cannot), its usage counters, and the operator's views of every number, their delivery
// health, and which replica holds which.
import { ApiError, notFound } from "../http/errors.ts";
import { deliveryPayloadRetentionMs } from "./inbound-events.ts";
import { dayMs, numberLimitStatus, type NumberLimitSettings } from "./number-limits.ts";
import type { DeliveryStore, GatewayDelivery } from "./store/deliveries.ts";
import type { GatewayInstance, InstanceStore } from "./store/instances.ts";
import type { MessageStore } from "./store/messages.ts";
import type { ProjectStore } from "./store/projects.ts";
import type { GatewayReplica } from "./store/replicas.ts";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export type PoolStatus = "ready" | "pending" | "disconnected" | "rate_limited" | "warming_up" | "retired" | "suspended";

/** A number's session counts as live while its owner's lease runs. */
const liveOwner = (instance: GatewayInstance, now: number) => instance.owner !== null && (instance.leaseExpiresAt ?? 0) >= now;

export class Views {
  constructor(
    private readonly projects: ProjectStore,
    private readonly instances: InstanceStore,
    private readonly messages: MessageStore,
    private readonly deliveries: DeliveryStore,
    private readonly limits: NumberLimitSettings,
    private readonly now: () => number,
  ) {}

  async pool(projectId: string) {
    const project = (await this.projects.get(projectId))!;
    const now = this.now();
    const numbers = [];
    for (const instance of await this.instances.inService(projectId)) {
      const status = await this.poolStatus(instance, project.suspendedAt !== null, now);
      numbers.push({ instanceId: instance.id, phone: instance.phone, label: instance.label, ...status });
    }
    return { ready: numbers.filter((number) => number.status === "ready").length, numbers };
  }

  private async poolStatus(instance: GatewayInstance, suspended: boolean, now: number): Promise<{ status: PoolStatus; reason: string | null; until: string | null }> {
    if (instance.state === "retired") return { status: "retired", reason: `retired ${iso(instance.retiredAt)}`, until: null };
    if (suspended) return { status: "suspended", reason: "the project is suspended", until: null };
    if (instance.state === "pending") return { status: "pending", reason: instance.lastError ?? "not paired yet: connect it and scan the QR code", until: null };
    if (instance.connection !== "open" || !liveOwner(instance, now)) return { status: "disconnected", reason: instance.lastError ?? "no open session", until: null };
    const sent = await this.messages.sentThrough(instance.id, now - dayMs);
    const limit = numberLimitStatus(sent, instance.pairedAt ?? instance.createdAt, now, this.limits);
    if (limit.kind === "ready") return { status: "ready", reason: null, until: null };
    return { status: limit.kind, reason: limit.detail, until: iso(limit.until) };
  }

  async usage(projectId: string) {
    const messages = await this.messages.countsByState(projectId);
    const deliveries = await this.deliveries.countsByState(projectId);
    const sum = (rows: { count: number }[]) => rows.reduce((total, row) => total + row.count, 0);
    return {
      sent: sum(messages.filter((row) => row.state === "sent" || row.state === "delivered" || row.state === "read")),
      rejected: sum(messages.filter((row) => row.state === "failed")),
      received: sum(deliveries.filter((row) => row.event === "message.received")),
      pending: sum(messages.filter((row) => row.state === "queued" || row.state === "sending")),
      dead: sum(deliveries.filter((row) => row.state === "dead")),
    };
  }

  /** Every number of every project: the registry. */
  async numbers() {
    const projects = new Map((await this.projects.list(100_000, null)).map((project) => [project.id, project]));
    return (await this.instances.all()).map((instance) => ({
      instanceId: instance.id,
      phone: instance.phone,
      label: instance.label,
      projectId: instance.projectId,
      projectName: projects.get(instance.projectId)?.name ?? null,
      state: instance.state,
      pairedAt: iso(instance.pairedAt),
      retiredAt: iso(instance.retiredAt),
      createdAt: iso(instance.createdAt),
    }));
  }

  /** Per number in service: its sends and receipts over the last day, and whether it still delivers. */
  async deliveryHealth() {
    const now = this.now();
    const rows = [];
    for (const instance of await this.instances.all()) {
      if (instance.state === "retired") continue;
      const sends = await this.messages.sentThrough(instance.id, now - dayMs);
      const outcome = await this.messages.receiptsThrough(instance.id, now - dayMs);
      const delivering = instance.state === "paired" && instance.connection === "open" && liveOwner(instance, now);
      rows.push({
        instanceId: instance.id,
        phone: instance.phone,
        projectId: instance.projectId,
        status: !delivering ? "not_delivering" : sends.length > 0 && outcome.delivered === 0 ? "no_receipts" : "delivering",
        connection: instance.connection,
        sentLast24h: sends.length,
        deliveredLast24h: outcome.delivered,
        failedLast24h: outcome.failed,
        lastSentAt: iso(sends.at(-1) ?? null),
        lastDeliveredAt: iso(outcome.lastDeliveredAt),
      });
    }
    return rows;
  }

  async shards(liveReplicas: GatewayReplica[], self: string) {
    const now = this.now();
    const held = (await this.instances.all()).filter((instance) => instance.state !== "retired" && liveOwner(instance, now));
    const replicas = liveReplicas.map((replica) => ({
      id: replica.id,
      url: replica.url,
      sharding: replica.sharding,
      self: replica.id === self,
      startedAt: iso(replica.startedAt),
      heartbeatAt: iso(replica.heartbeatAt),
      instances: held.filter((instance) => instance.owner === replica.id).map((instance) => ({ instanceId: instance.id, phone: instance.phone, leaseExpiresAt: iso(instance.leaseExpiresAt) })),
    }));
    const wanting = await this.instances.wantingSession();
    const unowned = wanting.filter((instance) => !liveOwner(instance, now)).map((instance) => ({ instanceId: instance.id, phone: instance.phone }));
    return { replicas, unowned };
  }
}

/** The delivery's replay: re-queued with a fresh schedule, 409 when it is not dead, 410 once its payload expired. */
export async function replayDelivery(deliveries: DeliveryStore, delivery: GatewayDelivery | null, projectId: string | null, now: number): Promise<GatewayDelivery> {
  if (!delivery || (projectId !== null && delivery.projectId !== projectId)) throw notFound("delivery");
  if (delivery.state !== "dead") throw new ApiError(409, "not_dead", `the delivery is ${delivery.state}; only a dead letter can be replayed`);
  if (delivery.payload === null) {
    throw new ApiError(410, "payload_expired", `the payload expired ${iso(delivery.payloadExpiresAt)} (payloads are kept ${deliveryPayloadRetentionMs / dayMs} days); the row remains for the record`);
  }
  const replayed = await deliveries.requeue(delivery.id, now);
  if (!replayed) throw new ApiError(409, "not_dead", "the delivery changed meanwhile; read it again");
  return replayed;
}
