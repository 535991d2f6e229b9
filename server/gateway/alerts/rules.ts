// The six alert rules an operator of the gateway needs, each evaluated from the store on every
// supervisor pass. Each says what to do when it fires.
import type { DeliveryStore } from "../store/deliveries.ts";
import type { InstanceStore } from "../store/instances.ts";
import type { MessageStore } from "../store/messages.ts";
import type { GatewayReplica } from "../store/replicas.ts";

export type AlertSeverity = "critical" | "warning";
export type AlertRuleName = "store_unreachable" | "replica_ownership" | "instance_disconnected" | "dead_letters" | "delivery_failure_rate" | "send_queue_age";

/** A paired number may be disconnected this long (a phone restarting, a network blip) before it alerts. */
export const disconnectedGraceMs = 120_000;
/** Dead letters counted over this window. */
export const deadLetterWindowMs = 3_600_000;
/** Webhook failures counted over this window; the rule needs this many attempts to judge a rate. */
export const failureRateWindowMs = 15 * 60_000;
export const failureRateAttemptsMin = 5;
export const failureRateMax = 0.5;
/** A message waiting longer than this to be sent alerts. */
export const sendQueueAgeMaxMs = 5 * 60_000;

export interface AlertRule {
  name: AlertRuleName;
  severity: AlertSeverity;
  summary: string;
  action: string;
}

export const alertRules: readonly AlertRule[] = [
  {
    name: "store_unreachable",
    severity: "critical",
    summary: "The gateway's store does not answer",
    action: "Check the database (GATEWAY_DATABASE_URL or the SQLite file's disk); nothing can be queued or delivered until it answers.",
  },
  {
    name: "replica_ownership",
    severity: "critical",
    summary: "A paired number has no live owner, or replicas run without sharding",
    action: "Start a replica (or check why none renews its leases); with more than one replica set SHARDING_ENABLED=true and REPLICA_URL on each.",
  },
  {
    name: "instance_disconnected",
    severity: "warning",
    summary: "A paired number has been disconnected past the grace period",
    action: "Check the phone is on and online; if it was unlinked, connect the instance and scan the QR code again.",
  },
  {
    name: "dead_letters",
    severity: "warning",
    summary: "Deliveries went to the dead-letter queue in the last hour",
    action: "Fix the project's webhook receiver, then replay the dead letters (POST /v1/admin/deliveries/{id}/replay) within 30 days.",
  },
  {
    name: "delivery_failure_rate",
    severity: "warning",
    summary: "Most webhook deliveries of the last 15 minutes failed",
    action: "Check the failing projects' webhook receivers (GET /v1/admin/deliveries?state=retrying shows their errors).",
  },
  {
    name: "send_queue_age",
    severity: "warning",
    summary: "A message has waited more than 5 minutes to be sent",
    action: "Check the project's pool (GET /v1/pool): its numbers may be disconnected, rate-limited or warming up; add numbers or wait.",
  },
];

export interface RuleFinding {
  firing: boolean;
  detail: string | null;
}

export interface RuleInputs {
  now: number;
  instances: InstanceStore;
  messages: MessageStore;
  deliveries: DeliveryStore;
  liveReplicas: GatewayReplica[];
}

/** The rules other than store_unreachable (which the supervisor knows from its own ping). */
export async function evaluateRules(inputs: RuleInputs): Promise<Record<Exclude<AlertRuleName, "store_unreachable">, RuleFinding>> {
  const { now } = inputs;
  const instances = await inputs.instances.wantingSession();
  const paired = instances.filter((instance) => instance.state === "paired");
  const liveIds = new Set(inputs.liveReplicas.map((replica) => replica.id));
  const unowned = paired.filter((instance) => instance.owner === null || !liveIds.has(instance.owner) || (instance.leaseExpiresAt ?? 0) < now);
  const unownedLong = unowned.filter((instance) => now - Math.max(instance.disconnectedAt ?? instance.updatedAt, instance.leaseExpiresAt ?? 0) >= disconnectedGraceMs);
  const unsharded = inputs.liveReplicas.filter((replica) => !replica.sharding);
  const conflict = inputs.liveReplicas.length > 1 && unsharded.length > 0;
  const ownershipDetail = [
    conflict ? `${inputs.liveReplicas.length} replicas share the store and ${unsharded.length} run without sharding (${unsharded.map((replica) => replica.id).join(", ")})` : null,
    unownedLong.length > 0 ? `${unownedLong.length} paired numbers without a live owner: ${unownedLong.slice(0, 10).map((instance) => instance.phone).join(", ")}` : null,
  ].filter((part): part is string => part !== null);

  const disconnected = paired.filter((instance) => instance.connection !== "open" && instance.disconnectedAt !== null && now - instance.disconnectedAt >= disconnectedGraceMs);
  const dead = await inputs.deliveries.deadSince(now - deadLetterWindowMs);
  const attempts = await inputs.deliveries.attemptsSince(now - failureRateWindowMs);
  const failing = attempts.attempts >= failureRateAttemptsMin && attempts.failed / attempts.attempts > failureRateMax;
  const oldest = (await inputs.messages.oldestOpen()).reduce((min, row) => Math.min(min, row.createdAt), Number.POSITIVE_INFINITY);
  const queueAge = Number.isFinite(oldest) ? now - oldest : 0;
  return {
    replica_ownership: { firing: ownershipDetail.length > 0, detail: ownershipDetail.length > 0 ? ownershipDetail.join("; ") : null },
    instance_disconnected: {
      firing: disconnected.length > 0,
      detail: disconnected.length > 0 ? `${disconnected.length} disconnected: ${disconnected.slice(0, 10).map((instance) => instance.phone).join(", ")}` : null,
    },
    dead_letters: { firing: dead > 0, detail: dead > 0 ? `${dead} dead letters in the last hour` : null },
    delivery_failure_rate: { firing: failing, detail: failing ? `${attempts.failed} of ${attempts.attempts} deliveries failed in the last 15 minutes` : null },
    send_queue_age: { firing: queueAge > sendQueueAgeMaxMs, detail: queueAge > sendQueueAgeMaxMs ? `the oldest queued message has waited ${Math.round(queueAge / 1_000)} s` : null },
  };
}
