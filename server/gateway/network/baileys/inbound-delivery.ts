// Hands what a Baileys socket emits to the gateway: inbound messages and receipts, one at a time
// in arrival order, each awaited before the next. Baileys emits events without waiting for its
// listeners, so without this queue two messages could be stored out of order.
import { isJidStatusBroadcast } from "baileys";
import type { MessageUpsertType, MessageUserReceiptUpdate, WAMessage, WAMessageUpdate } from "baileys";
import type { Receipt, SessionEvents } from "../network.ts";
import type { BaileysLogger } from "./logger.ts";
import { MessageMappingError, mediaOf, receiptsFromStatusUpdates, receiptsFromUserReceipts, toInboundMessage } from "./message-mapping.ts";

/** Inbound media above this size is passed on without its bytes (type, mimetype, caption still go). */
export const inboundMediaBytesMax = 16 * 1024 * 1024;

/** Fetches a message's media (the network boundary); null when it cannot. Never throws. */
export type MediaDownload = (message: WAMessage) => Promise<Uint8Array | null>;

export class InboundDelivery {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly events: Pick<SessionEvents, "message" | "receipt">,
    private readonly logger: BaileysLogger,
    private readonly download: MediaDownload,
    private readonly now: () => number = Date.now,
  ) {}

  /** `messages.upsert`. Resolves once this batch has been handed over (the queue never rejects). */
  messages(messages: readonly WAMessage[], type: MessageUpsertType): Promise<void> {
    return this.enqueue(() => this.deliverMessages(messages, type));
  }

  /** `messages.update`: status changes of messages, among them our own sends' delivered and read. */
  statusUpdates(updates: readonly WAMessageUpdate[]): Promise<void> {
    return this.enqueue(() => this.deliverReceipts(receiptsFromStatusUpdates(updates, this.now())));
  }

  /** `message-receipt.update`: per-recipient receipts. */
  userReceipts(updates: readonly MessageUserReceiptUpdate[]): Promise<void> {
    return this.enqueue(() => this.deliverReceipts(receiptsFromUserReceipts(updates)));
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(task).catch((error: unknown) => this.logger.error({ error }, "handing an event to the gateway failed"));
    return this.queue;
  }

  private async deliverMessages(messages: readonly WAMessage[], type: MessageUpsertType): Promise<void> {
    // "notify": arrived now; "append": arrived while this device was offline (Baileys marks those
    // so). Both are new to the gateway. Not delivered: our own sends (fromMe), status posts, and
    // stubs without content (a message that failed to decrypt; WhatsApp retries it under the same
    // id, and delivering the stub first would make the gateway drop the real one as a duplicate).
    if (type !== "notify" && type !== "append") return;
    for (const message of messages) {
      const key = message.key;
      if (!key || key.fromMe || !message.message || (typeof key.remoteJid === "string" && isJidStatusBroadcast(key.remoteJid))) continue;
      let mapped;
      try {
        mapped = toInboundMessage(message, await this.mediaBytes(message), this.now());
      } catch (error) {
        if (!(error instanceof MessageMappingError)) throw error;
        this.logger.warn({ error, id: key.id }, "inbound message skipped");
        continue;
      }
      try {
        await this.events.message(mapped);
      } catch (error) {
        // Baileys has acknowledged it already (see baileys-network.ts): nothing can ask for it again.
        this.logger.error({ error, id: mapped.networkId }, "the gateway did not take an inbound message");
      }
    }
  }

  private async mediaBytes(message: WAMessage): Promise<Uint8Array | null> {
    const media = mediaOf(message);
    if (!media) return null;
    if (media.declaredBytes !== null && media.declaredBytes > inboundMediaBytesMax) {
      this.logger.info({ id: message.key.id, declaredBytes: media.declaredBytes }, "inbound media over the size limit; passed on without bytes");
      return null;
    }
    return this.download(message);
  }

  private async deliverReceipts(receipts: Receipt[]): Promise<void> {
    for (const receipt of receipts) {
      try {
        await this.events.receipt(receipt);
      } catch (error) {
        this.logger.error({ error, id: receipt.networkId }, "the gateway did not take a receipt");
      }
    }
  }
}

/** Reads a stream to its end, or stops and destroys it once it passes `bytesMax` (a sender may declare less than it sends). */
export async function readBounded(stream: AsyncIterable<Uint8Array> & { destroy(): void }, bytesMax: number): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += chunk.byteLength;
    if (bytes > bytesMax) {
      stream.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  const whole = new Uint8Array(bytes);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return whole;
}
