// Server-Sent Events framing (the HTML standard's text/event-stream). A field's value must not
// hold a line break (CR or LF): `data` is always JSON text, which escapes them, and ids and
// event names are the service's own.

export const eventStreamHeaders = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-cache",
  // Reverse proxies that buffer answers (nginx) would hold events back until the buffer fills.
  "X-Accel-Buffering": "no",
};

export interface SseMessage {
  /** Sets the client's last event id (sent back as Last-Event-ID when it reconnects). */
  id?: string;
  /** The event type; absent, clients dispatch it as `message`. */
  event?: string;
  /** One line of text: JSON. */
  data: string;
}

const encoder = new TextEncoder();

export function sseMessage({ id, event, data }: SseMessage): Uint8Array {
  return encoder.encode(`${id === undefined ? "" : `id: ${id}\n`}${event === undefined ? "" : `event: ${event}\n`}data: ${data}\n\n`);
}

/** A block that only moves the client's last event id (no data: clients dispatch nothing). */
export const sseIdOnly = (id: string): Uint8Array => encoder.encode(`id: ${id}\n\n`);

/** How long a client waits before reconnecting after the connection drops. */
export const sseRetry = (milliseconds: number): Uint8Array => encoder.encode(`retry: ${milliseconds}\n\n`);

/** A comment line: clients ignore it; it keeps the connection (and proxies) from going idle. */
export const sseComment = (text: string): Uint8Array => encoder.encode(`: ${text}\n\n`);
