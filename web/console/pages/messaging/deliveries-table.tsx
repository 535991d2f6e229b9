// Webhook deliveries, a project's (its key) or every project's (the root key): the state
// filter, paging, the last error and the next attempt, and replaying a dead letter (the
// gateway answers 410 once its payload has expired; that answer is shown as it is).
import { useRef, useState } from "preact/hooks";
import { listDeliveries, replayDelivery, type GatewayKeyKind } from "../../api/gateway-api.ts";
import { deliveryStates, type DeliveryState, type GatewayDelivery } from "../../api/gateway-types.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import type { Column } from "../../ui/data-table.tsx";
import { ReplayButton, useReplay, WebhookDeliveries } from "../keyed-service/webhook-deliveries.tsx";
import { mergeFresh, StateBadge, Time, useRefreshWhile } from "./messaging-bits.tsx";

const movingStates: ReadonlySet<DeliveryState> = new Set(["pending", "retrying"]);

export function DeliveriesTable({ apiKey, scope, initialState = "" }: { apiKey: string; scope: GatewayKeyKind; initialState?: DeliveryState | "" }) {
  const [state, setState] = useState<DeliveryState | "">(initialState);
  const deliveries = usePagedList((cursor) => listDeliveries(apiKey, scope, state || null, cursor), [apiKey, scope, state]);
  const { list, update } = deliveries;
  const shownState = useRef(state);
  shownState.current = state;
  useRefreshWhile(list.status === "ready" && list.items.some((delivery) => movingStates.has(delivery.state)), () => {
    const asked = state;
    listDeliveries(apiKey, scope, asked || null, null).then(
      (page) => shownState.current === asked && update((items) => mergeFresh(items, page.results)),
      // A failed background read changes nothing shown; the next one, or Refresh, tries again.
      () => undefined,
    );
  });
  const replay = useReplay(deliveries, (delivery) => replayDelivery(apiKey, scope, delivery.id), (delivery) => delivery.event);
  const columns: Column<GatewayDelivery>[] = [
    { label: "Created", cell: (delivery) => <Time at={delivery.createdAt} /> },
    ...(scope === "root" ? [{ label: "Project", cell: (delivery: GatewayDelivery) => <code>{delivery.projectId}</code> }] : []),
    { label: "Event", cell: (delivery) => <code class="nowrap">{delivery.event}</code> },
    { label: "State", cell: (delivery) => <StateBadge state={delivery.state} /> },
    { label: "Attempts", numeric: true, cell: (delivery) => delivery.attempts },
    { label: "Last error", cell: (delivery) => (delivery.lastError ? <span class="gateway-error-text">{delivery.lastError}</span> : "—") },
    { label: "Next attempt", cell: (delivery) => <Time at={delivery.nextAttemptAt} /> },
    {
      label: "Actions",
      actions: true,
      cell: (delivery) => delivery.state === "dead" && <ReplayButton onReplay={() => replay.replay(delivery)} />,
    },
  ];
  return (
    <WebhookDeliveries
      titleId={`${scope}-deliveries-title`}
      title={scope === "root" ? "Deliveries of every project" : "Deliveries"}
      states={deliveryStates}
      state={state}
      onState={setState}
      deliveries={deliveries}
      replay={replay}
      caption={scope === "root" ? "Deliveries of every project, newest first" : "Webhook deliveries, newest first"}
      emptyMeaning={state === "dead" ? "Every delivery reached its webhook or is still being tried." : "Inbound messages and receipts are listed here as they are delivered to the webhook."}
      columns={columns}
    />
  );
}
