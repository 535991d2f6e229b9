// A Server-Sent Events client for tests: reads a real response body (fetch's, or any byte
// stream) and parses it by the HTML standard's rules for text/event-stream (a leading BOM
// dropped; lines end at CRLF, LF or CR; `:` starts a comment; one space after the field's colon
// dropped; `data` lines joined with LF; `id` sets the last event id unless it holds NUL, even on
// a block with no data; `retry` only when all digits; a block without data dispatches nothing).
// It reads only when a test asks for something, so a test that stops asking stops reading.
import { expect } from "bun:test";

export interface SseEvent {
  /** The `event` field, or "message". */
  type: string;
  data: string;
  /** The last event id when this event was dispatched. */
  lastEventId: string;
}

/** What the client uses of a body's reader. */
interface ByteReader {
  read(): Promise<{ done: true; value?: Uint8Array } | { done: false; value: Uint8Array }>;
  cancel(): Promise<void>;
}

/** How long a test waits for something it expects from a stream before failing. */
export const sseWaitMs = 10_000;

export class SseReader {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  /** The last `retry` the stream gave, in ms. */
  retry: number | null = null;
  lastEventId = "";
  private readonly reader: ByteReader;
  private readonly decoder = new TextDecoder();
  private text = "";
  private started = false;
  private ended = false;
  private data: string[] = [];
  private eventType = "";
  private idBuffer = "";
  private pendingRead: ReturnType<ByteReader["read"]> | null = null;

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** The next event (comments are kept apart, in `comments`). */
  async next(timeoutMs = sseWaitMs): Promise<SseEvent> {
    await this.readUntil(() => this.events.length > 0, timeoutMs, "an event");
    return this.events.shift()!;
  }

  /** The next comment line's text. */
  async nextComment(timeoutMs = sseWaitMs): Promise<string> {
    await this.readUntil(() => this.comments.length > 0, timeoutMs, "a comment");
    return this.comments.shift()!;
  }

  /** Waits for the server to end the stream; returns the events that came before the end. */
  async end(timeoutMs = sseWaitMs): Promise<SseEvent[]> {
    await this.readUntil(() => this.ended, timeoutMs, "the end of the stream");
    return this.events.splice(0);
  }

  /** Closes the connection from the client's side. */
  close(): Promise<void> {
    return this.reader.cancel();
  }

  private async readUntil(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (this.ended) throw new Error(`the stream ended before ${what} came`);
      this.pendingRead ??= this.reader.read();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<"timed out">((resolve) => (timer = setTimeout(() => resolve("timed out"), Math.max(0, deadline - Date.now()))));
      const result = await Promise.race([this.pendingRead, timedOut]);
      clearTimeout(timer);
      if (result === "timed out") throw new Error(`no ${what} within ${timeoutMs} ms`);
      this.pendingRead = null;
      if (result.done) {
        this.feed(this.decoder.decode(), true);
        this.ended = true;
      } else {
        this.feed(this.decoder.decode(result.value, { stream: true }), false);
      }
    }
  }

  private feed(chunk: string, last: boolean): void {
    this.text += chunk;
    if (!this.started && this.text.length > 0) {
      this.started = true;
      if (this.text.startsWith("\uFEFF")) this.text = this.text.slice(1);
    }
    let start = 0;
    for (let i = 0; i < this.text.length; i++) {
      const char = this.text[i];
      if (char !== "\n" && char !== "\r") continue;
      // A CR at the end of what arrived may be the first half of a CRLF.
      if (char === "\r" && i === this.text.length - 1 && !last) break;
      this.line(this.text.slice(start, i));
      if (char === "\r" && this.text[i + 1] === "\n") i++;
      start = i + 1;
    }
    this.text = this.text.slice(start);
  }

  private line(line: string): void {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) {
      this.comments.push(line.slice(1).replace(/^ /, ""));
      return;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") this.eventType = value;
    else if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) this.idBuffer = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retry = Number(value);
  }

  private dispatch(): void {
    this.lastEventId = this.idBuffer;
    if (this.data.length === 0) {
      this.eventType = "";
      return;
    }
    this.events.push({ type: this.eventType || "message", data: this.data.join("\n"), lastEventId: this.lastEventId });
    this.data = [];
    this.eventType = "";
  }
}

export interface SseConnection {
  response: Response;
  stream: SseReader;
}

/** Opens an event stream with fetch (Accept: text/event-stream) and checks that it is one. */
export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  const response = await fetch(url, { headers: { accept: "text/event-stream", ...headers } });
  expect([response.status, response.headers.get("content-type")]).toEqual([200, "text/event-stream; charset=utf-8"]);
  return { response, stream: new SseReader(response.body!) };
}
