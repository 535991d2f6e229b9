// A queue of items (events, or recording chunks) already written as JSON text, sent to one
// ingest path in requests of at most `itemsMax` items and about `bytesMax` bytes (UTF-8), one
// request at a time. A request that fails for a reason that may pass (network error, 429,
// 5xx) is sent again after an exponential backoff with jitter, or after the answer's
// Retry-After; one refused with another 4xx is dropped. On page hide what is left goes by
// beacon, in pieces a beacon takes. Items carry their own ids, so a resent item is deduplicated.
import { beaconBytesMax, post, sendOnHide, utf8Bytes } from "./transport.ts";

export const retryBaseMs = 1000;
export const retryMaxMs = 30_000;
/** Past this many waiting items (the ingest unreachable for long), the oldest are dropped. */
export const queuedItemsMax = 10_000;

export interface DeliveryOptions {
  url: string;
  /** The request body around the items: `{"api_key":…,"sent_at":…,"<field>":[items]}`. */
  envelope: (items: string) => string;
  itemsMax: number;
  bytesMax: number;
  /** Called with each 200 answer's JSON. */
  onAnswer?: (answer: unknown) => void;
}

export class Delivery {
  private readonly items: string[] = [];
  private sending = false;
  private attempts = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly options: DeliveryOptions) {}

  get size(): number {
    return this.items.length;
  }

  push(item: string): void {
    this.items.push(item);
    if (this.items.length > queuedItemsMax) this.items.splice(0, this.items.length - queuedItemsMax);
  }

  /** How many of the first items fit in one request of at most `bytesMax` bytes (at least one). */
  private cut(bytesMax: number): number {
    let bytes = utf8Bytes(this.options.envelope(""));
    let count = 0;
    while (count < this.items.length && count < this.options.itemsMax) {
      bytes += utf8Bytes(this.items[count]!) + 1;
      if (count > 0 && bytes > bytesMax) break;
      count++;
    }
    return count;
  }

  /** Sends everything queued, request after request; resolves when the queue is empty or waiting to retry. */
  async flush(): Promise<void> {
    if (this.sending || this.retryTimer) return;
    this.sending = true;
    try {
      while (this.items.length > 0) {
        const taken = this.items.slice(0, this.cut(this.options.bytesMax));
        const outcome = await post(this.options.url, this.options.envelope(taken.join(",")));
        if (outcome.kind === "retry") {
          this.attempts++;
          const backoff = Math.min(retryMaxMs, retryBaseMs * 2 ** (this.attempts - 1));
          const delay = outcome.afterMs ?? backoff / 2 + Math.random() * (backoff / 2);
          this.retryTimer = setTimeout(() => {
            this.retryTimer = null;
            void this.flush();
          }, delay);
          return;
        }
        this.attempts = 0;
        // A beacon on page hide may have sent them meanwhile: only what is still at the head goes.
        let sent = 0;
        while (sent < taken.length && this.items[sent] === taken[sent]) sent++;
        this.items.splice(0, sent);
        if (outcome.kind === "sent") this.options.onAnswer?.(outcome.answer);
      }
    } finally {
      this.sending = false;
    }
  }

  /** The page is going away: everything queued leaves now, by beacon (a request in flight may send some twice; ingest deduplicates). */
  sendAllOnHide(): void {
    while (this.items.length > 0) {
      const count = this.cut(beaconBytesMax);
      sendOnHide(this.options.url, this.options.envelope(this.items.splice(0, count).join(",")));
    }
  }
}
