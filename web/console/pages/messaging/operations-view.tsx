// The operator's view (root key): the six alert rules, firing ones first (the gateway answers
// 503 while a critical one fires; the page shows that as "critical", not as a failure), the
// replicas and the numbers each holds, every number's delivery health, and dead letters of
// every project with replay.
import { readAlerts, readDeliveryHealth, readShards } from "../../api/gateway-api.ts";
import type { Alert, Alerts, DeliveryHealth, Shards } from "../../api/gateway-types.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { ActivityIcon } from "../../ui/icons.tsx";
import { EmptyState, Loaded } from "../../ui/states.tsx";
import { RefreshToolbar } from "../keyed-service/refresh-toolbar.tsx";
import { DeliveriesTable } from "./deliveries-table.tsx";
import { StateBadge, Time } from "./messaging-bits.tsx";

const severityOrder = { critical: 0, warning: 1 } as const;

/** Firing first, critical before warning, then by rule name. */
const ordered = (alerts: Alert[]) =>
  [...alerts].sort((a, b) => Number(b.firing) - Number(a.firing) || severityOrder[a.severity] - severityOrder[b.severity] || a.rule.localeCompare(b.rule));

const statusText = { ok: "All clear: no rule fires.", warning: "Warning: a rule fires.", critical: "Critical: a critical rule fires, and the gateway answers 503 to its health check." };

function AlertsSection({ alerts }: { alerts: Alerts }) {
  return (
    <section class="card table-card alerts-card" aria-labelledby="alerts-title">
      <div class="gateway-toolbar">
        <h2 id="alerts-title" class="section-subtitle">Alerts</h2>
        <p class={`gateway-status gateway-status-${alerts.status}`} role="status">
          <StateBadge state={alerts.status} /> {statusText[alerts.status]}
        </p>
      </div>
      <DataTable
        caption="Alert rules, firing ones first"
        rows={ordered(alerts.alerts)}
        rowKey={(alert) => alert.rule}
        columns={[
          { label: "Rule", cell: (alert) => <code class="text-strong nowrap">{alert.rule}</code> },
          { label: "Severity", cell: (alert) => <StateBadge state={alert.severity} /> },
          { label: "State", cell: (alert) => (alert.firing ? <span class="badge badge-danger">firing</span> : alert.evaluated ? <span class="badge badge-success">clear</span> : <span class="badge badge-muted">not evaluated</span>) },
          { label: "Since", cell: (alert) => <Time at={alert.since} /> },
          { label: "What it means", cell: (alert) => <>{alert.summary}{alert.detail && <span class="alert-detail">{alert.detail}</span>}</> },
          { label: "Action", cell: (alert) => alert.action },
        ]}
      />
    </section>
  );
}

function ShardsSection({ shards }: { shards: Shards }) {
  return (
    <section class="card table-card" aria-labelledby="shards-title">
      <div class="gateway-toolbar">
        <h2 id="shards-title" class="section-subtitle">Replicas</h2>
        <p class="muted-note">
          {shards.sharding ? "Sharding is on." : "Sharding is off: one replica holds every number."}{" "}
          {shards.unowned.length === 0 ? "Every number that wants a session has an owner." : `Without an owner: ${shards.unowned.map((number) => number.phone).join(", ")}.`}
        </p>
      </div>
      <DataTable
        caption="Live replicas and the numbers each holds"
        rows={shards.replicas}
        rowKey={(replica) => replica.id}
        empty={<EmptyState icon={<ActivityIcon size={20} />} title="No live replica">No replica has announced itself recently.</EmptyState>}
        columns={[
          { label: "Replica", cell: (replica) => <span class="row-actions"><code>{replica.id}</code>{replica.self && <span class="badge badge-accent">this one</span>}</span> },
          { label: "Address", cell: (replica) => replica.url ?? "—" },
          { label: "Last heartbeat", cell: (replica) => <Time at={replica.heartbeatAt} /> },
          { label: "Numbers held", cell: (replica) => (replica.instances.length === 0 ? "None" : replica.instances.map((number) => number.phone).join(", ")) },
        ]}
      />
    </section>
  );
}

function HealthSection({ numbers }: { numbers: DeliveryHealth[] }) {
  return (
    <section class="card table-card" aria-labelledby="health-title">
      <div class="gateway-toolbar">
        <h2 id="health-title" class="section-subtitle">Delivery health, last 24 hours</h2>
      </div>
      <DataTable
        caption="Delivery health per number"
        rows={numbers}
        rowKey={(number) => number.instanceId}
        empty={<EmptyState icon={<ActivityIcon size={20} />} title="No numbers in service">Numbers appear here once a project registers them.</EmptyState>}
        columns={[
          { label: "Phone", cell: (number) => <span class="text-strong nowrap">{number.phone}</span> },
          { label: "Project", cell: (number) => <code>{number.projectId}</code> },
          { label: "Health", cell: (number) => <StateBadge state={number.status} /> },
          { label: "Connection", cell: (number) => <StateBadge state={number.connection} /> },
          { label: "Sent", numeric: true, cell: (number) => number.sentLast24h },
          { label: "Delivered", numeric: true, cell: (number) => number.deliveredLast24h },
          { label: "Failed", numeric: true, cell: (number) => number.failedLast24h },
          { label: "Last delivered", cell: (number) => <Time at={number.lastDeliveredAt} /> },
        ]}
      />
    </section>
  );
}

export function OperationsView({ apiKey }: { apiKey: string }) {
  const [alerts, reloadAlerts] = useResource(() => readAlerts(apiKey), [apiKey]);
  const [shards, reloadShards] = useResource(() => readShards(apiKey), [apiKey]);
  const [health, reloadHealth] = useResource(() => readDeliveryHealth(apiKey), [apiKey]);
  const reload = () => {
    reloadAlerts();
    reloadShards();
    reloadHealth();
  };
  return (
    <>
      <RefreshToolbar title="Operations" onRefresh={reload} />
      {/* Each part loads on its own: a store outage that fails the shards still leaves the alerts readable. */}
      <Loaded resource={alerts} what="the alerts" onRetry={reloadAlerts}>{(data) => <AlertsSection alerts={data} />}</Loaded>
      <Loaded resource={shards} what="the replicas" onRetry={reloadShards}>{(data) => <ShardsSection shards={data} />}</Loaded>
      <Loaded resource={health} what="the delivery health" onRetry={reloadHealth}>{(data) => <HealthSection numbers={data} />}</Loaded>
      <DeliveriesTable apiKey={apiKey} scope="root" initialState="dead" />
    </>
  );
}
