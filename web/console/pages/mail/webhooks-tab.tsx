// The tenant's webhook endpoints: create one with the events it receives (its signing secret is
// shown once, right then), delete one, and each endpoint's deliveries with every attempt, a
// delivered or failed one replayable.
import { useRef, useState } from "preact/hooks";
import { createWebhook, deleteWebhook, listWebhookDeliveries, listWebhooks, replayWebhookDelivery } from "../../api/mail-api.ts";
import { mailEventTypes, webhookDeliveryStates, type MailWebhook, type WebhookDelivery, type WebhookDeliveryState } from "../../api/mail-types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { CodeBlock } from "../../ui/code-block.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { ConfirmDialog } from "../../ui/dialog.tsx";
import { TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { PlusIcon } from "../../ui/icons.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { RefreshToolbar } from "../keyed-service/refresh-toolbar.tsx";
import { ReplayButton, useReplay, WebhookDeliveries } from "../keyed-service/webhook-deliveries.tsx";
import { SettingsSection } from "../settings/settings-section.tsx";
import { useAction } from "../settings/use-action.ts";
import { exactTime, Time } from "../messaging/messaging-bits.tsx";
import { eventInWords, MailBadge } from "./mail-bits.tsx";

/** The API's own limit on an endpoint's URL (server/mail/webhooks/webhook-url.ts). */
const webhookUrlLengthMax = 2_048;
/** Checked at first: what most integrations want to hear about. */
const suggestedEvents: ReadonlySet<string> = new Set(["email.delivered", "email.bounced", "email.complained"]);

function CreateForm({ apiKey, onCreated }: { apiKey: string; onCreated(webhook: MailWebhook & { secret: string }): void }) {
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormAction(async (fields) => {
    const events = fields.getAll("events").filter((value): value is string => typeof value === "string");
    const webhook = await createWebhook(apiKey, fieldText(fields, "url").trim(), events);
    formRef.current?.reset();
    onCreated(webhook);
  });
  return (
    <form ref={formRef} class="form settings-form" onSubmit={form.onSubmit}>
      <FormError error={form.error} />
      <TextField label="Endpoint URL" name="url" type="url" required maxLength={webhookUrlLengthMax} placeholder="https://hooks.example.com/mail" autoComplete="off" spellcheck={false} />
      <fieldset class="field mail-events">
        <legend class="field-label">Events</legend>
        <div class="checkbox-list">
          {mailEventTypes.map((type) => (
            <label key={type} class="checkbox">
              <input type="checkbox" name="events" value={type} defaultChecked={suggestedEvents.has(type)} />
              <code>{type}</code>
            </label>
          ))}
        </div>
      </fieldset>
      <div class="form-actions">
        <Button type="submit" variant="primary" busy={form.busy}>
          <PlusIcon /> Create endpoint
        </Button>
      </div>
    </form>
  );
}

function ShownOnceSecret({ webhook, onDismiss }: { webhook: MailWebhook & { secret: string }; onDismiss(): void }) {
  return (
    <div class="mail-secret" role="status">
      <p class="text-strong">The endpoint {webhook.url} is created. Its signing secret:</p>
      <CodeBlock code={webhook.secret} label="Signing secret" />
      <p class="muted-note">Copy it now: it is not shown again. Verify each delivery's webhook-signature with it (the svix or standardwebhooks libraries do).</p>
      <Button small onClick={onDismiss}>I have copied it</Button>
    </div>
  );
}

function AttemptsList({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attempts.length === 0) return <>none yet</>;
  return (
    <details class="mail-webhook-attempts">
      <summary>{delivery.attempts.length === 1 ? "1 attempt" : `${delivery.attempts.length} attempts`}</summary>
      <ol>
        {delivery.attempts.map((attempt) => (
          <li key={attempt.started_at}>
            <span class="nowrap">{exactTime(attempt.started_at)}</span> · {attempt.status === null ? "no answer" : `HTTP ${attempt.status}`} · {attempt.duration_ms} ms
            {attempt.error && attempt.error !== `HTTP ${attempt.status}` && <span class="gateway-error-text"> · {attempt.error}</span>}
            {attempt.response_excerpt && <pre class="mail-excerpt">{attempt.response_excerpt}</pre>}
          </li>
        ))}
      </ol>
    </details>
  );
}

function Deliveries({ apiKey, webhook }: { apiKey: string; webhook: MailWebhook }) {
  const [state, setState] = useState<WebhookDeliveryState | "">("");
  const deliveries = usePagedList((cursor) => listWebhookDeliveries(apiKey, webhook.id, state || null, cursor), [apiKey, webhook.id, state]);
  const replay = useReplay(deliveries, (delivery) => replayWebhookDelivery(apiKey, webhook.id, delivery.id), (delivery) => delivery.event_type);
  return (
    <WebhookDeliveries
      titleId="webhook-deliveries-title"
      title={<>Deliveries to <span class="mail-address">{webhook.url}</span></>}
      states={webhookDeliveryStates}
      state={state}
      onState={setState}
      deliveries={deliveries}
      replay={replay}
      caption="Deliveries to this endpoint, newest first"
      emptyMeaning={state === "" ? "Each event this endpoint subscribes to is posted to it and listed here." : "Choose another state to see more."}
      columns={[
        { label: "Created", cell: (delivery) => <Time at={delivery.created_at} /> },
        { label: "Event", cell: (delivery) => <code class="nowrap">{delivery.event_type}</code> },
        { label: "State", cell: (delivery) => <MailBadge status={delivery.state} /> },
        { label: "Last answer", cell: (delivery) => <span class="gateway-error-text">{delivery.last_error ?? (delivery.last_status === null ? "—" : `HTTP ${delivery.last_status}`)}</span> },
        { label: "Attempts", cell: (delivery) => <AttemptsList delivery={delivery} /> },
        { label: "Next attempt", cell: (delivery) => <Time at={delivery.next_attempt_at} /> },
        { label: "Actions", actions: true, cell: (delivery) => delivery.state !== "pending" && <ReplayButton onReplay={() => replay.replay(delivery)} /> },
      ]}
    />
  );
}

function DeleteDialog({ apiKey, webhook, onClose, onDeleted }: { apiKey: string; webhook: MailWebhook; onClose(): void; onDeleted(webhook: MailWebhook): void }) {
  const remove = useAction(async () => {
    await deleteWebhook(apiKey, webhook.id);
    onDeleted(webhook);
  });
  return (
    <ConfirmDialog open title="Delete this endpoint?" confirmLabel="Delete endpoint" danger busy={remove.busy} onConfirm={() => void remove.run()} onClose={onClose}>
      <FormError error={remove.error} />
      <p>
        <strong class="mail-address">{webhook.url}</strong> gets no more events, and its queued deliveries are not posted.
      </p>
    </ConfirmDialog>
  );
}

export function WebhooksTab({ apiKey }: { apiKey: string }) {
  const webhooks = usePagedList((cursor) => listWebhooks(apiKey, cursor), [apiKey]);
  const [created, setCreated] = useState<(MailWebhook & { secret: string }) | null>(null);
  const [openId, setOpenId] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<MailWebhook | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const { list } = webhooks;
  const open = list.status === "ready" ? list.items.find((webhook) => webhook.id === openId) : undefined;
  return (
    <>
      <SettingsSection id="create-webhook" title="Add an endpoint" description="Your server receives the events it subscribes to as signed POSTs (Standard Webhooks), retried for about 31 hours until it answers 2xx.">
        {created ? (
          <ShownOnceSecret webhook={created} onDismiss={() => setCreated(null)} />
        ) : (
          <CreateForm
            apiKey={apiKey}
            onCreated={(webhook) => {
              const { secret: _secret, ...shown } = webhook;
              webhooks.update((items) => [shown, ...items]);
              setNotice(null);
              setCreated(webhook);
            }}
          />
        )}
      </SettingsSection>
      <section class="card table-card" aria-labelledby="webhooks-title">
        <RefreshToolbar title="Endpoints" titleId="webhooks-title" onRefresh={webhooks.reload} />
        {notice && <Alert tone="success">{notice}</Alert>}
        {list.status === "loading" && <LoadingState label="Loading the endpoints…" />}
        {list.status === "failed" && <ErrorState title="The endpoints could not be loaded" error={list.error} onRetry={webhooks.reload} />}
        {list.status === "ready" && (
          <DataTable
            caption="Webhook endpoints"
            rows={list.items}
            rowKey={(webhook) => webhook.id}
            empty={<EmptyState icon={<PlusIcon size={20} />} title="No endpoints yet">Add the URL of your server above to hear when emails are delivered, bounce or draw complaints.</EmptyState>}
            columns={[
              { label: "URL", cell: (webhook) => <span class="mail-address text-strong">{webhook.url}</span> },
              { label: "Events", cell: (webhook) => <span class="mail-answer">{webhook.events.map(eventInWords).join(", ")}</span> },
              { label: "State", cell: (webhook) => <MailBadge status={webhook.enabled ? "enabled" : "disabled"} /> },
              { label: "Created", cell: (webhook) => <Time at={webhook.created_at} /> },
              {
                label: "Actions",
                actions: true,
                cell: (webhook) => (
                  <span class="row-actions">
                    <Button small variant={openId === webhook.id ? "primary" : "secondary"} aria-label={`Deliveries to ${webhook.url}`} onClick={() => setOpenId(openId === webhook.id ? null : webhook.id)}>
                      Deliveries
                    </Button>
                    <Button small variant="ghost" aria-label={`Delete ${webhook.url}`} onClick={() => { setNotice(null); setDeleting(webhook); }}>Delete</Button>
                  </span>
                ),
              },
            ]}
          />
        )}
        <LoadMore controls={webhooks} />
      </section>
      {open && <Deliveries key={open.id} apiKey={apiKey} webhook={open} />}
      {deleting && (
        <DeleteDialog
          apiKey={apiKey}
          webhook={deleting}
          onClose={() => setDeleting(null)}
          onDeleted={(webhook) => {
            webhooks.update((items) => items.filter((item) => item.id !== webhook.id));
            if (openId === webhook.id) setOpenId(null);
            setNotice(`${webhook.url} is deleted.`);
            setDeleting(null);
          }}
        />
      )}
    </>
  );
}
