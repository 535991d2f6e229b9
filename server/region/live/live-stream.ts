// One client's stream of GET /events/live. Messages wait in the response stream's queue until
// the HTTP server takes them, which it does only as fast as the client reads. Past
// streamQueueBytesMax queued, events are dropped rather than queued (a slow client cannot make
// the region hold an unbounded backlog); once the client has read the queue down to half of
// that, it is sent `event: dropped` with how many it lost since the previous such notice, and
// events flow again. (Resuming as soon as one event fits would interleave a notice with nearly
// every event of a client that keeps up only barely.) A comment line every heartbeatIntervalMs
// keeps the connection from going idle; the stream ends when its token expires or a revocation
// takes away its access.
import { sseComment, sseMessage } from "../../http/sse.ts";
import { matches, type LiveFilter } from "./live-query.ts";
import type { LiveRendering } from "./live-rendering.ts";
import type { RecentEvent } from "./recent-events.ts";

/**
 * Bytes of messages a stream may have queued for a client that does not read fast enough. An
 * ingest request's events are queued at once, so this is also the most of one request a client
 * that reads fast is sure to get: a full batch of 1,000 events of up to 4 KB each.
 */
export const streamQueueBytesMax = 4 * 1024 * 1024;
/** A stream that dropped events sends again once its queue holds at most this share of streamQueueBytesMax. */
export const resumeQueueShare = 0.5;
/**
 * How often an idle stream sends `: heartbeat`. Below the HTTP server's idle time-out (Bun's
 * default, 10 s), which would otherwise close a quiet stream; proxies' are longer.
 */
export const heartbeatIntervalMs = 5_000;

export interface LiveStreamOptions {
  queueBytesMax: number;
  heartbeatIntervalMs: number;
}

export const defaultLiveStreamOptions: LiveStreamOptions = { queueBytesMax: streamQueueBytesMax, heartbeatIntervalMs };

/** Why the service ended a stream (`event: end`); a stream the client closes just ends. */
export type EndReason = "token_expired" | "token_revoked" | "shutting_down" | "internal_error";

/** Who watches, and what: the token's view decides what the stream may show and for how long. */
export interface LiveWatcher {
  filter: LiveFilter;
  /** The token holds persons.pii: personal data is shown unmasked. */
  pii: boolean;
  /** Epoch ms when the token expires: the stream ends then. */
  expiresAt: number;
  /** Whether the token still holds its access (revocations arrive while the stream runs). */
  stillAllowed: () => boolean;
}

const heartbeat = sseComment("heartbeat");

export class LiveStream {
  readonly body: ReadableStream<Uint8Array>;
  /** Settles once the stream has ended, whoever ended it. */
  readonly closed: Promise<void>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  /** Events dropped since the last `dropped` notice. */
  private lost = 0;
  private ended = false;
  private readonly heartbeatTimer: ReturnType<typeof setInterval>;
  private readonly expiryTimer: ReturnType<typeof setTimeout>;
  private markClosed!: () => void;

  constructor(
    readonly watcher: LiveWatcher,
    private readonly options: LiveStreamOptions,
    /** Called once when the stream ends (the hub frees its slot). */
    private readonly onEnd: () => void,
  ) {
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        // The client has read from the queue: once it is down to resumeQueueShare, it learns what it lost.
        pull: () => this.noticeLost(),
        cancel: () => this.finish(),
      },
      { highWaterMark: options.queueBytesMax, size: (chunk) => chunk?.byteLength ?? 0 },
    );
    this.heartbeatTimer = setInterval(() => this.beat(), options.heartbeatIntervalMs);
    this.expiryTimer = setTimeout(() => this.end("token_expired"), Math.max(0, watcher.expiresAt - Date.now()));
  }

  private queuedBytes(): number {
    return this.options.queueBytesMax - (this.controller.desiredSize ?? 0);
  }

  private fits(bytes: number): boolean {
    return this.queuedBytes() + bytes <= this.options.queueBytesMax;
  }

  /** Queues what the stream says about itself (its position, a gap on reconnecting): small, never dropped. */
  control(message: Uint8Array): void {
    if (!this.ended) this.controller.enqueue(message);
  }

  /** Queues an event's message, or counts it lost when the queue is full (or has not drained since it was). */
  send(message: Uint8Array): void {
    if (this.ended) return;
    this.noticeLost();
    if (this.lost > 0 || !this.fits(message.byteLength)) {
      this.lost++;
      return;
    }
    this.controller.enqueue(message);
  }

  /** Sends a newly accepted event if the stream's filter lets it through. */
  deliver(event: RecentEvent, rendering: LiveRendering): void {
    if (!this.ended && matches(this.watcher.filter, event.event)) this.send(rendering.message(event, "event", this.watcher.pii));
  }

  /** Once the client has read the queue down to resumeQueueShare: how many events it lost, and events flow again. */
  private noticeLost(): void {
    if (this.lost === 0 || this.ended || this.queuedBytes() > this.options.queueBytesMax * resumeQueueShare) return;
    this.controller.enqueue(sseMessage({ event: "dropped", data: JSON.stringify({ dropped: this.lost, reason: "slow_reader" }) }));
    this.lost = 0;
  }

  private beat(): void {
    if (!this.watcher.stillAllowed()) return this.end("token_revoked");
    this.noticeLost();
    // A client whose queue is full is not reading: a heartbeat would only wait behind the rest.
    if (this.fits(heartbeat.byteLength)) this.controller.enqueue(heartbeat);
  }

  /** Tells the client why, then ends the stream (what is queued is still delivered). */
  end(reason: EndReason): void {
    if (this.ended) return;
    this.controller.enqueue(sseMessage({ event: "end", data: JSON.stringify({ reason }) }));
    this.controller.close();
    this.finish();
  }

  /** Stops timers and frees the stream's slot, once. */
  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.heartbeatTimer);
    clearTimeout(this.expiryTimer);
    this.onEnd();
    this.markClosed();
  }
}
