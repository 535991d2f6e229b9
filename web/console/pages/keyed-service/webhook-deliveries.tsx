// A service's webhook deliveries (the gateway's, the mail API's): a state filter, Refresh, the
// listing read a page at a time, and replaying one, which tells what it did or why it could not.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { PagedListControls } from "../../hooks/use-paged-list.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { type Column, DataTable } from "../../ui/data-table.tsx";
import { SelectField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { CheckIcon } from "../../ui/icons.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { RefreshToolbar } from "./refresh-toolbar.tsx";

export function ReplayButton({ onReplay }: { onReplay(): Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const replay = async () => {
    setBusy(true);
    await onReplay();
    setBusy(false);
  };
  return <Button small variant="primary" busy={busy} onClick={replay}>Replay</Button>;
}

export interface Replay<Row> {
  /** What the last replay did, or null. */
  notice: string | null;
  /** Why the last replay could not be done, or null. */
  error: unknown;
  replay(delivery: Row): Promise<void>;
}

/** Replays a delivery through `replayDelivery` and shows the service's answer in place of it; `event` names it in the notice. */
export function useReplay<Row extends { id: string }>(deliveries: PagedListControls<Row>, replayDelivery: (delivery: Row) => Promise<Row>, event: (delivery: Row) => string): Replay<Row> {
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const replay = async (delivery: Row) => {
    setNotice(null);
    setError(null);
    try {
      const replayed = await replayDelivery(delivery);
      deliveries.update((items) => items.map((item) => (item.id === replayed.id ? replayed : item)));
      setNotice(`The ${event(delivery)} delivery is queued again.`);
    } catch (caught) {
      setError(caught);
    }
  };
  return { notice, error, replay };
}

interface WebhookDeliveriesProps<Row, State extends string> {
  titleId: string;
  title: ComponentChildren;
  states: readonly State[];
  /** The state shown, or "" for every state. */
  state: State | "";
  onState(state: NoInfer<State> | ""): void;
  deliveries: PagedListControls<Row>;
  replay: Replay<Row>;
  caption: string;
  /** What the listing says when it is empty (in the state shown). */
  emptyMeaning: ComponentChildren;
  columns: readonly Column<Row>[];
}

export function WebhookDeliveries<Row extends { id: string }, State extends string>(props: WebhookDeliveriesProps<Row, State>) {
  const { titleId, state, deliveries, replay } = props;
  const { list } = deliveries;
  return (
    <section class="card table-card" aria-labelledby={titleId}>
      <RefreshToolbar title={props.title} titleId={titleId} onRefresh={deliveries.reload}>
        <SelectField label="State" name="delivery-state" value={state} onChange={(change) => props.onState(change.currentTarget.value as State | "")}>
          <option value="">Every state</option>
          {props.states.map((name) => <option key={name} value={name}>{name}</option>)}
        </SelectField>
      </RefreshToolbar>
      {replay.notice && <Alert tone="success">{replay.notice}</Alert>}
      <FormError error={replay.error} />
      {list.status === "loading" && <LoadingState label="Loading the deliveries…" />}
      {list.status === "failed" && <ErrorState title="The deliveries could not be loaded" error={list.error} onRetry={deliveries.reload} />}
      {list.status === "ready" && (
        <DataTable
          caption={props.caption}
          rows={list.items}
          rowKey={(delivery) => delivery.id}
          empty={
            <EmptyState icon={<CheckIcon size={20} />} title={state === "" ? "No deliveries yet" : `No ${state} deliveries`}>
              {props.emptyMeaning}
            </EmptyState>
          }
          columns={props.columns}
        />
      )}
      <LoadMore controls={deliveries} />
    </section>
  );
}
