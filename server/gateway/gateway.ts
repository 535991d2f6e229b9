// The messaging gateway as one unit a process can serve: its store (SQLite in DATA_DIR, or
// the PostgreSQL of GATEWAY_DATABASE_URL), its root key, its network sessions, send queue,
// webhook deliveries and supervisor, and its HTTP app mounted at `prefix` (`/gateway` inside
// the one process `npm start` runs, `` when it runs alone).
import { Elysia } from "elysia";
import { join } from "node:path";
import { apiErrorHandler } from "../http/elysia-errors.ts";
import { Alerts } from "./alerts/alerts.ts";
import { GatewayAuth } from "./auth.ts";
import type { GatewayContext } from "./context.ts";
import { DeliveryWorker } from "./deliveries/delivery-worker.ts";
import { Dispatcher } from "./dispatcher.ts";
import { InboundEvents } from "./inbound-events.ts";
import { InstancesService } from "./instances-service.ts";
import { Leases } from "./leases.ts";
import { Metrics } from "./metrics.ts";
import { selectNetwork } from "./network/select.ts";
import { ProjectsService } from "./projects-service.ts";
import { adminRoutes } from "./routes/admin.ts";
import { adminAuditRoutes, projectAuditRoutes } from "./routes/audit.ts";
import { adminDeliveryRoutes, projectDeliveryRoutes } from "./routes/deliveries.ts";
import { replicaHeader } from "./routes/forward.ts";
import { openApiRoutes } from "./routes/openapi.ts";
import { projectInstanceRoutes } from "./routes/project-instances.ts";
import { projectMessageRoutes } from "./routes/project-messages.ts";
import { publicRoutes } from "./routes/public.ts";
import { rootProjectRoutes } from "./routes/root-projects.ts";
import { loadRootKey } from "../service-keys.ts";
import { rootKeyPrefix } from "./secrets.ts";
import { SendService } from "./send-service.ts";
import { SessionHost } from "./session-host.ts";
import type { GatewaySettings } from "./settings.ts";
import { AlertStore } from "./store/alerts.ts";
import { AuditStore } from "./store/audit.ts";
import { openGatewayDatabase } from "./store/database.ts";
import { DeliveryStore } from "./store/deliveries.ts";
import { InstanceStore } from "./store/instances.ts";
import { MessageStore } from "./store/messages.ts";
import { ProjectStore } from "./store/projects.ts";
import { ReplicaStore } from "./store/replicas.ts";
import { Supervisor } from "./supervisor.ts";
import { Views } from "./views.ts";

export const gatewaySqliteFile = "gateway.sqlite";
export const gatewayRootKeyFile = "gateway-root-key";

export interface RunningGateway {
  handle(request: Request): Promise<Response>;
  /** The root key when this start made it (print it once); null when it was configured or kept. */
  createdRootKey: string | null;
  /** The simulated network's URL when this gateway started one itself (GATEWAY_NETWORK=simulated, no URL). */
  embeddedSimulatorUrl: string | null;
  ctx: GatewayContext;
  /** The (method, path) pairs the app serves, prefix included (the contract test compares them with openapi.json). */
  routes(): { method: string; path: string }[];
  close(): Promise<void>;
}

export interface GatewayOptions {
  /** The clock every schedule reads (tests move it to run a day of retries at once). */
  now?: () => number;
  log?: (line: string) => void;
}

export async function startGateway(settings: GatewaySettings, dataDir: string, prefix: string, options: GatewayOptions = {}): Promise<RunningGateway> {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((line: string) => console.error(line));
  const database = await openGatewayDatabase(settings.databaseUrl ?? join(dataDir, gatewaySqliteFile));
  const rootKey = loadRootKey(settings.rootKey, join(dataDir, gatewayRootKeyFile), rootKeyPrefix);
  const replica = `replica-${Bun.randomUUIDv7().slice(-12)}`;
  const startedAt = now();
  const projectStore = new ProjectStore(database.sql);
  const audit = new AuditStore(database.sql);
  const instanceStore = new InstanceStore(database.sql);
  const messages = new MessageStore(database.sql);
  const deliveries = new DeliveryStore(database.sql);
  const replicas = new ReplicaStore(database.sql);
  const selected = await selectNetwork(settings);
  const limits = { sendsPerMinute: settings.sendsPerMinute, warmupDailyCaps: settings.warmupDailyCaps };

  // The pieces refer to each other through these late-bound callbacks (a session that opens
  // wakes the dispatcher; a stored event wakes the delivery worker).
  let dispatcher: Dispatcher;
  let deliveryWorker: DeliveryWorker;
  let leases: Leases;
  const sessionsRef: { host?: SessionHost } = {};
  const metrics = new Metrics({
    replica,
    projects: projectStore,
    messages,
    deliveries,
    now,
    connectedInstances: () => sessionsRef.host?.connected().length ?? 0,
    heldLeases: () => leases.heldCount(),
  });
  const events = new InboundEvents(deliveries, now, (event, projectId) => {
    if (event === "message.received") metrics.received(projectId);
    deliveryWorker.kick();
  });
  const sessions = new SessionHost({ sql: database.sql, network: selected.network, instances: instanceStore, messages, events, now, onConnected: () => dispatcher.kick(), log });
  sessionsRef.host = sessions;
  dispatcher = new Dispatcher({
    replica,
    messages,
    sessions,
    events,
    metrics,
    limits,
    claimMs: settings.leaseTtlMs,
    now,
    suspended: (projectIds) => projectStore.suspendedAmong(projectIds),
    log,
  });
  deliveryWorker = new DeliveryWorker({ replica, deliveries, projects: projectStore, metrics, now, timeoutMs: settings.webhookTimeoutMs, log });
  leases = new Leases({ replica, replicaUrl: settings.replicaUrl, sharding: settings.sharding, leaseTtlMs: settings.leaseTtlMs, startedAt, instances: instanceStore, replicas, sessions, dispatcher, now, log });
  const alerts = new Alerts({ alerts: new AlertStore(database.sql), instances: instanceStore, messages, deliveries, webhookUrl: settings.alertWebhookUrl, deployment: replica, now, log });
  const supervisor = new Supervisor({ database, leases, dispatcher, deliveryWorker, deliveries, alerts, intervalMs: settings.supervisorIntervalMs, now, log });

  const ctx: GatewayContext = {
    settings,
    database,
    auth: new GatewayAuth(rootKey.hash, projectStore),
    projects: new ProjectsService(projectStore, audit, now),
    audit,
    replica,
    prefix,
    now,
    instanceStore,
    instances: new InstancesService(instanceStore, sessions, leases, audit, messages, events, now),
    messages,
    sends: new SendService(messages, now, () => dispatcher.kick()),
    deliveries,
    replicas,
    leases,
    views: new Views(projectStore, instanceStore, messages, deliveries, limits, now),
    metrics,
    supervisor,
    kickDeliveries: () => deliveryWorker.kick(),
  };
  const app = new Elysia({ name: "gateway", prefix })
    .onError(apiErrorHandler)
    .use(publicRoutes(ctx))
    .use(openApiRoutes())
    .use(rootProjectRoutes(ctx))
    .use(adminRoutes(ctx))
    .use(adminDeliveryRoutes(ctx))
    .use(adminAuditRoutes(ctx))
    .use(projectInstanceRoutes(ctx))
    .use(projectMessageRoutes(ctx))
    .use(projectDeliveryRoutes(ctx))
    .use(projectAuditRoutes(ctx));

  // The first pass takes the numbers' leases and reopens their sessions before requests rely on them.
  await supervisor.sweep().catch((error: Error) => log(`gateway: first supervisor pass failed: ${error.message}`));
  supervisor.start();

  let closed = false;
  return {
    handle: async (request) => {
      const response = await app.handle(request);
      // Which replica answered (a forwarded request names the owner that did).
      if (!response.headers.has(replicaHeader)) response.headers.set(replicaHeader, replica);
      return response;
    },
    createdRootKey: rootKey.created,
    embeddedSimulatorUrl: selected.embeddedSimulatorUrl,
    ctx,
    routes: () => app.routes.map(({ method, path }) => ({ method, path })),
    close: async () => {
      if (closed) return;
      closed = true;
      supervisor.stop();
      dispatcher.stop();
      deliveryWorker.stop();
      await leases.releaseAll().catch(() => {});
      await sessions.closeAll();
      await selected.close();
      await database.close();
    },
  };
}
