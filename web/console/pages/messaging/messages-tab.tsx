// A project's messages: send a text (each submission with its own Idempotency-Key, so a retry
// of the same request cannot send twice), the queue newest first with a state filter and
// paging, and one message's detail. The list reads itself again while a message is moving.
import { useRef, useState } from "preact/hooks";
import { listMessages, sendText } from "../../api/gateway-api.ts";
import { messageStates, type GatewayMessage, type MessageState } from "../../api/gateway-types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { usePagedList } from "../../hooks/use-paged-list.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { SelectField, TextAreaField, TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { MailIcon } from "../../ui/icons.tsx";
import { LoadMore } from "../../ui/load-more.tsx";
import { EmptyState, ErrorState, LoadingState } from "../../ui/states.tsx";
import { RefreshToolbar } from "../keyed-service/refresh-toolbar.tsx";
import { SettingsSection } from "../settings/settings-section.tsx";
import { MessageDetail, messageSummary } from "./message-detail.tsx";
import { mergeFresh, StateBadge, Time, useRefreshWhile } from "./messaging-bits.tsx";

/** The gateway's own limit on a text (server/gateway/send-service.ts). */
const textLengthMax = 4_096;
const movingStates: ReadonlySet<MessageState> = new Set(["queued", "sending", "sent"]);

function SendForm({ apiKey, onQueued }: { apiKey: string; onQueued(message: GatewayMessage): void }) {
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormAction(async (fields) => {
    const message = await sendText(apiKey, fieldText(fields, "to").trim(), fieldText(fields, "text"), crypto.randomUUID());
    formRef.current?.reset();
    onQueued(message);
  });
  return (
    <form ref={formRef} class="form settings-form" onSubmit={form.onSubmit}>
      <FormError error={form.error} />
      <TextField label="To" name="to" required placeholder="+4917012345678" autoComplete="off" hint="The recipient's number in international format (E.164)." />
      <TextAreaField label="Text" name="text" required rows={3} maxLength={textLengthMax} />
      <div class="form-actions">
        <Button type="submit" variant="primary" busy={form.busy}>
          <MailIcon /> Send message
        </Button>
      </div>
    </form>
  );
}

export function MessagesTab({ apiKey }: { apiKey: string }) {
  const [state, setState] = useState<MessageState | "">("");
  const messages = usePagedList((cursor) => listMessages(apiKey, state || null, cursor), [apiKey, state]);
  const [openId, setOpenId] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const { list, update } = messages;
  const moving = list.status === "ready" && list.items.some((message) => movingStates.has(message.state));
  const shownState = useRef(state);
  shownState.current = state;
  useRefreshWhile(moving, () => {
    const asked = state;
    listMessages(apiKey, asked || null, null).then(
      (page) => shownState.current === asked && update((items) => mergeFresh(items, page.results)),
      // A failed background read changes nothing shown; the next one, or Refresh, tries again.
      () => undefined,
    );
  });
  const replace = (changed: GatewayMessage) => update((items) => items.map((item) => (item.id === changed.id ? changed : item)));
  return (
    <>
      <SettingsSection id="send" title="Send a message" description="The gateway queues it at once and sends it through a ready number of the pool; its state below follows it to delivered and read.">
        {notice && <Alert tone="success">{notice}</Alert>}
        <SendForm
          apiKey={apiKey}
          onQueued={(message) => {
            if (state === "" || state === message.state) update((items) => mergeFresh(items, [message]));
            setNotice(`The message to ${message.to} is queued.`);
          }}
        />
      </SettingsSection>
      <section class="card table-card" aria-labelledby="messages-title">
        <RefreshToolbar title="Messages" titleId="messages-title" onRefresh={messages.reload}>
          <SelectField label="State" name="state" value={state} onChange={(change) => setState(change.currentTarget.value as MessageState | "")}>
            <option value="">Every state</option>
            {messageStates.map((name) => <option key={name} value={name}>{name}</option>)}
          </SelectField>
        </RefreshToolbar>
        {list.status === "loading" && <LoadingState label="Loading the messages…" />}
        {list.status === "failed" && <ErrorState title="The messages could not be loaded" error={list.error} onRetry={messages.reload} />}
        {list.status === "ready" && (
          <DataTable
            caption="Messages, newest first"
            rows={list.items}
            rowKey={(message) => message.id}
            onRowClick={(message) => setOpenId(message.id)}
            empty={<EmptyState icon={<MailIcon size={20} />} title={state === "" ? "No messages yet" : `No ${state} messages`}>{state === "" ? "Send the first one with the form above." : "Choose another state to see more."}</EmptyState>}
            columns={[
              { label: "Created", cell: (message) => <Time at={message.createdAt} /> },
              { label: "To", cell: (message) => <span class="nowrap">{message.to}</span> },
              { label: "Message", cell: (message) => <span class="message-preview">{messageSummary(message)}</span> },
              { label: "State", cell: (message) => <StateBadge state={message.state} /> },
              { label: "Attempts", numeric: true, cell: (message) => message.attempts },
              { label: "Failure", cell: (message) => message.failure ?? "—" },
            ]}
          />
        )}
        <LoadMore controls={messages} />
      </section>
      {openId && <MessageDetail apiKey={apiKey} messageId={openId} onClose={() => setOpenId(null)} onChanged={replace} />}
    </>
  );
}
