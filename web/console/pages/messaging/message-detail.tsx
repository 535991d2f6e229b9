// One message: its state over time (created, sent, delivered, read, or why it failed), its
// attempts on the network, and cancelling it while it is still queued.
import { useState } from "preact/hooks";
import { cancelMessage, listSends, readMessage } from "../../api/gateway-api.ts";
import type { GatewayMessage, GatewaySend } from "../../api/gateway-types.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { Button } from "../../ui/button.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { ErrorState, LoadingState } from "../../ui/states.tsx";
import { Fact } from "../settings/settings-section.tsx";
import { useAction } from "../settings/use-action.ts";
import { exactTime, StateBadge, Time } from "./messaging-bits.tsx";

/** What the message says: its text, or its media's kind, name and caption. */
export function messageSummary(message: GatewayMessage): string {
  const { content } = message;
  if (content.type === "text" && "text" in content) return content.text;
  if ("mimeType" in content) return [`${content.type} (${content.mimeType})`, content.fileName, content.caption].filter(Boolean).join(" · ");
  return content.type;
}

function Timeline({ message }: { message: GatewayMessage }) {
  const steps: { label: string; at: string | null }[] = [
    { label: "Created", at: message.createdAt },
    { label: "Sent", at: message.sentAt },
    { label: "Delivered", at: message.deliveredAt },
    { label: "Read", at: message.readAt },
  ];
  return (
    <ol class="message-timeline" aria-label="State timeline">
      {steps.map((step) => (
        <li key={step.label} class={step.at ? "timeline-step timeline-done" : "timeline-step"}>
          <span class="timeline-label">{step.label}</span>
          <span class="timeline-time">{step.at ? exactTime(step.at) : "—"}</span>
        </li>
      ))}
      {message.state === "failed" && (
        <li class="timeline-step timeline-failed">
          <span class="timeline-label">Failed</span>
          <span class="timeline-time">{message.failure ?? "no reason given"}</span>
        </li>
      )}
      {message.state === "cancelled" && (
        <li class="timeline-step timeline-failed">
          <span class="timeline-label">Cancelled</span>
        </li>
      )}
    </ol>
  );
}

function Attempts({ sends }: { sends: GatewaySend[] }) {
  return (
    <DataTable
      caption="Attempts on the network"
      rows={sends}
      rowKey={(send) => send.id}
      empty={<p class="muted-note">No attempt yet: the message is waiting for a number of the pool.</p>}
      columns={[
        { label: "Started", cell: (send) => <Time at={send.startedAt} /> },
        { label: "Outcome", cell: (send) => <StateBadge state={send.outcome} /> },
        { label: "Number", cell: (send) => <code>{send.instanceId}</code> },
        { label: "Error", cell: (send) => send.error ?? "—" },
      ]}
    />
  );
}

export function MessageDetail({ apiKey, messageId, onClose, onChanged }: { apiKey: string; messageId: string; onClose(): void; onChanged(message: GatewayMessage): void }) {
  const [detail, reload] = useResource(async () => {
    const [message, sends] = await Promise.all([readMessage(apiKey, messageId), listSends(apiKey, messageId)]);
    return { message, sends };
  }, [apiKey, messageId]);
  const [cancelled, setCancelled] = useState<GatewayMessage | null>(null);
  const cancel = useAction(async () => {
    const message = await cancelMessage(apiKey, messageId);
    setCancelled(message);
    onChanged(message);
  });
  const message = cancelled ?? (detail.status === "ready" ? detail.data.message : null);
  return (
    <Dialog
      open
      wide
      title="Message"
      onClose={onClose}
      footer={
        <>
          {message?.state === "queued" && <Button variant="danger" busy={cancel.busy} onClick={() => void cancel.run()}>Cancel message</Button>}
          <Button onClick={reload}>Refresh</Button>
          <Button variant="primary" onClick={onClose}>Close</Button>
        </>
      }
    >
      {detail.status === "loading" && <LoadingState label="Loading the message…" />}
      {detail.status === "failed" && <ErrorState title="The message could not be loaded" error={detail.error} onRetry={reload} />}
      {detail.status === "ready" && message && (
        <div class="message-detail">
          <FormError error={cancel.error} />
          <dl class="facts">
            <Fact term="To">{message.to}</Fact>
            <Fact term="State"><StateBadge state={message.state} /></Fact>
            <Fact term="Attempts">{message.attempts}</Fact>
            <Fact term="Next attempt"><Time at={message.nextAttemptAt} /></Fact>
            <Fact term="Text" wide><span class="message-text">{messageSummary(message)}</span></Fact>
            <Fact term="Message ID" wide><code>{message.id}</code></Fact>
          </dl>
          <Timeline message={message} />
          <h3 class="section-subtitle">Attempts</h3>
          <Attempts sends={detail.data.sends} />
        </div>
      )}
    </Dialog>
  );
}
