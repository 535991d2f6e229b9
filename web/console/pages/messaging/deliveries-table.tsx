// Webhook deliveries, a project's (its key) or every project's (the root key): the state
// filter, paging, the last error and the next attempt, and replaying a dead letter (the
// gateway answers 410 once its payload has expired; that answer is shown as it is).
import { useRef, useState } from "preact/hooks";
import { listDeliveries, replayDelivery, type GatewayKeyKind } from "../../api/gateway-api.ts";
import { deliveryStates, type DeliveryState, type GatewayDelivery } from "../../api/gateway-types.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { type Column, DataTable } from "../../ui/data-table.tsx";
import { SelectField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { CheckIcon, RefreshIcon } from "../../ui/icons.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { mergeFresh, StateBadge, Time, useRefreshWhile } from "./messaging-bits.tsx";

const movingStates: ReadonlySet<DeliveryState> = new Set(["pending", "retrying"]);

function ReplayButton({ onReplay }: { onReplay(): Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const replay = async () => {
    setBusy(true);
    await onReplay();
    setBusy(false);
  };
  return <Button small variant="primary" busy={busy} onClick={replay}>Replay</Button>;
}

export function DeliveriesTable({ apiKey, scope, initialState = "" }: { apiKey: string; scope: GatewayKeyKind; initialState?: DeliveryState | "" }) {
  const [state, setState] = useState<DeliveryState | "">(initialState);
  const deliveries = usePagedList((cursor) => listDeliveries(apiKey, scope, state || null, cursor), [apiKey, scope, state]);
  const [notice, setNotice] = useState<string | null>(null);
  const [replayError, setReplayError] = useState<unknown>(null);
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
  const replay = async (delivery: GatewayDelivery) => {
    setNotice(null);
    setReplayError(null);
    try {
      const replayed = await replayDelivery(apiKey, scope, delivery.id);
      update((items) => items.map((item) => (item.id === replayed.id ? replayed : item)));
      setNotice(`The ${delivery.event} delivery is queued again.`);
    } catch (error) {
      setReplayError(error);
    }
  };
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
      cell: (delivery) => delivery.state === "dead" && <ReplayButton onReplay={() => replay(delivery)} />,
    },
  ];
  return (
    <section class="card table-card" aria-labelledby={`${scope}-deliveries-title`}>
      <div class="gateway-toolbar">
        <h2 id={`${scope}-deliveries-title`} class="section-subtitle">{scope === "root" ? "Deliveries of every project" : "Deliveries"}</h2>
        <SelectField label="State" name="delivery-state" value={state} onChange={(change) => setState(change.currentTarget.value as DeliveryState | "")}>
          <option value="">Every state</option>
          {deliveryStates.map((name) => <option key={name} value={name}>{name}</option>)}
        </SelectField>
        <Button small onClick={deliveries.reload}>
          <RefreshIcon /> Refresh
        </Button>
      </div>
      {notice && <Alert tone="success">{notice}</Alert>}
      <FormError error={replayError} />
      {list.status === "loading" && <LoadingState label="Loading the deliveries…" />}
      {list.status === "failed" && <ErrorState title="The deliveries could not be loaded" error={list.error} onRetry={deliveries.reload} />}
      {list.status === "ready" && (
        <DataTable
          caption={scope === "root" ? "Deliveries of every project, newest first" : "Webhook deliveries, newest first"}
          rows={list.items}
          rowKey={(delivery) => delivery.id}
          empty={
            <EmptyState icon={<CheckIcon size={20} />} title={state === "" ? "No deliveries yet" : `No ${state} deliveries`}>
              {state === "dead" ? "Every delivery reached its webhook or is still being tried." : "Inbound messages and receipts are listed here as they are delivered to the webhook."}
            </EmptyState>
          }
          columns={columns}
        />
      )}
      <LoadMore controls={deliveries} />
    </section>
  );
}
