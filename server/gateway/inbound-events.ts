// What becomes a delivery to the project's webhook: inbound messages, receipts of sent
// messages, failures, and a number's pairing and connection changes. Each is stored once per
// source (the network may report a thing twice) under a conversation key that orders it.
import type { InboundContent, InboundMessage, ReceiptStatus } from "./network/network.ts";
import type { DeliveryStore } from "./store/deliveries.ts";

/** A delivery's payload is kept this long, then dropped (replay answers 410; the row stays). */
export const deliveryPayloadRetentionMs = 30 * 24 * 3_600_000;
/** Inbound media larger than this is announced without its bytes (the webhook body stays bounded). */
export const inboundMediaBytesMax = 5 * 1024 * 1024;

export type DeliveryEvent = "message.received" | "message.delivered" | "message.read" | "message.failed" | "instance.paired" | "instance.disconnected" | "instance.logged_out";

const contentPayload = (content: InboundContent) => {
  if (content.type === "text") return { type: "text", text: content.text };
  if (content.type === "other") return { type: "other", description: content.description };
  const within = content.data !== null && content.data.byteLength <= inboundMediaBytesMax;
  return {
    type: content.type,
    mimeType: content.mimeType,
    fileName: content.fileName,
    caption: content.caption,
    bytes: content.data?.byteLength ?? null,
    dataBase64: within ? Buffer.from(content.data!).toString("base64") : null,
  };
};

export class InboundEvents {
  constructor(
    private readonly deliveries: DeliveryStore,
    private readonly now: () => number,
    private readonly onAdded: (event: DeliveryEvent, projectId: string) => void,
  ) {}

  private async add(projectId: string, instanceId: string | null, event: DeliveryEvent, conversation: string, source: string, data: Record<string, unknown>): Promise<void> {
    const id = Bun.randomUUIDv7();
    const now = this.now();
    const payload = JSON.stringify({ id, event, projectId, instanceId, createdAt: new Date(now).toISOString(), data });
    const added = await this.deliveries.add({ id, projectId, instanceId, event, conversation, source, payload, payloadExpiresAt: now + deliveryPayloadRetentionMs, now });
    if (added) this.onAdded(event, projectId);
  }

  message(instance: { id: string; projectId: string; phone: string }, message: InboundMessage) {
    return this.add(instance.projectId, instance.id, "message.received", `${instance.id}:${message.from}`, `message:${instance.id}:${message.networkId}`, {
      networkId: message.networkId,
      from: message.from,
      to: instance.phone,
      sentAt: new Date(message.sentAt).toISOString(),
      content: contentPayload(message.content),
    });
  }

  receipt(instance: { id: string; projectId: string }, message: { id: string; recipient: string }, status: ReceiptStatus, at: number) {
    return this.add(instance.projectId, instance.id, `message.${status}`, `${instance.id}:${message.recipient}`, `receipt:${message.id}:${status}`, {
      messageId: message.id,
      to: message.recipient,
      at: new Date(at).toISOString(),
    });
  }

  failed(projectId: string, instanceId: string | null, message: { id: string; recipient: string }, reason: string) {
    return this.add(projectId, instanceId, "message.failed", `${instanceId ?? "unsent"}:${message.recipient}`, `failed:${message.id}`, { messageId: message.id, to: message.recipient, reason });
  }

  /** A number's change; `occurrence` makes each change its own event (a number drops many times). */
  instance(instance: { id: string; projectId: string; phone: string }, event: "instance.paired" | "instance.disconnected" | "instance.logged_out", occurrence: string, detail: Record<string, unknown>) {
    return this.add(instance.projectId, instance.id, event, `${instance.id}:`, `${event}:${instance.id}:${occurrence}`, { phone: instance.phone, ...detail });
  }
}
