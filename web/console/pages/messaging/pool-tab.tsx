// A project's usage counters and its pool: which numbers can send now, and why each other
// cannot (not paired, disconnected, over its rate or warm-up cap) and until when.
import { readPool, readUsage } from "../../api/gateway-api.ts";
import type { Pool, Usage } from "../../api/gateway-types.ts";
import { formatNumber } from "../../format/numbers.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { UsersIcon } from "../../ui/icons.tsx";
import { EmptyState, Loaded } from "../../ui/states.tsx";
import { RefreshToolbar } from "../keyed-service/refresh-toolbar.tsx";
import { UsageCounter } from "../keyed-service/usage-counter.tsx";
import { StateBadge, Time } from "./messaging-bits.tsx";

const counters: { name: keyof Usage; label: string; meaning: string }[] = [
  { name: "sent", label: "Sent", meaning: "handed to the network (sent, delivered or read)" },
  { name: "pending", label: "Waiting", meaning: "queued or being sent" },
  { name: "rejected", label: "Failed", meaning: "messages that failed" },
  { name: "received", label: "Received", meaning: "inbound messages" },
  { name: "dead", label: "Dead letters", meaning: "deliveries that gave up" },
];

function UsageCounters({ usage }: { usage: Usage }) {
  return (
    <dl class="gateway-counters">
      {counters.map(({ name, label, meaning }) => (
        <UsageCounter key={name} label={label} value={formatNumber(usage[name])} meaning={meaning} />
      ))}
    </dl>
  );
}

function PoolTable({ pool }: { pool: Pool }) {
  return (
    <section class="card table-card" aria-labelledby="pool-title">
      <div class="gateway-toolbar">
        <h2 id="pool-title" class="section-subtitle">Pool</h2>
        <p class="muted-note">{pool.ready === 1 ? "1 number can send now." : `${formatNumber(pool.ready)} numbers can send now.`}</p>
      </div>
      <DataTable
        caption="The project's pool of numbers"
        rows={pool.numbers}
        rowKey={(number) => number.instanceId}
        empty={<EmptyState icon={<UsersIcon size={20} />} title="The pool is empty">Register and pair a number on the Numbers tab.</EmptyState>}
        columns={[
          { label: "Phone", cell: (number) => <span class="text-strong nowrap">{number.phone}</span> },
          { label: "Label", cell: (number) => number.label ?? "—" },
          { label: "Status", cell: (number) => <StateBadge state={number.status} /> },
          { label: "Reason", cell: (number) => number.reason ?? "—" },
          { label: "Until", cell: (number) => <Time at={number.until} /> },
        ]}
      />
    </section>
  );
}

export function PoolTab({ apiKey }: { apiKey: string }) {
  const [data, reload] = useResource(async () => {
    const [usage, pool] = await Promise.all([readUsage(apiKey), readPool(apiKey)]);
    return { usage, pool };
  }, [apiKey]);
  return (
    <>
      <RefreshToolbar title="Usage" onRefresh={reload} />
      <Loaded resource={data} what="the usage and the pool" onRetry={reload}>
        {({ usage, pool }) => (
          <>
            <UsageCounters usage={usage} />
            <PoolTable pool={pool} />
          </>
        )}
      </Loaded>
    </>
  );
}
