// What the gateway's routes share: its store, the caller check and the services on them.
import type { GatewayAuth } from "./auth.ts";
import type { InstancesService } from "./instances-service.ts";
import type { Leases } from "./leases.ts";
import type { Metrics } from "./metrics.ts";
import type { ProjectsService } from "./projects-service.ts";
import type { SendService } from "./send-service.ts";
import type { GatewaySettings } from "./settings.ts";
import type { GatewayDatabase } from "./store/database.ts";
import type { AuditStore } from "./store/audit.ts";
import type { DeliveryStore } from "./store/deliveries.ts";
import type { InstanceStore } from "./store/instances.ts";
import type { MessageStore } from "./store/messages.ts";
import type { ReplicaStore } from "./store/replicas.ts";
import type { Supervisor } from "./supervisor.ts";
import type { Views } from "./views.ts";

export interface GatewayContext {
  settings: GatewaySettings;
  database: GatewayDatabase;
  auth: GatewayAuth;
  projects: ProjectsService;
  audit: AuditStore;
  /** This replica's id (in the store's leases and replica list). */
  replica: string;
  /** Where the app is mounted (`/gateway` in the one process, `` alone): forwarded paths keep what follows. */
  prefix: string;
  now: () => number;
  instanceStore: InstanceStore;
  instances: InstancesService;
  messages: MessageStore;
  sends: SendService;
  deliveries: DeliveryStore;
  replicas: ReplicaStore;
  leases: Leases;
  views: Views;
  metrics: Metrics;
  supervisor: Supervisor;
  /** Wakes the delivery worker (a dead letter was replayed). */
  kickDeliveries(): void;
}
