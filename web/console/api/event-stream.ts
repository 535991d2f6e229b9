// Server-Sent Events read from a fetch answer's body (a browser's EventSource cannot send the
// Authorization header a region token goes in). Parses the format as the HTML standard
// defines it: fields per line, a blank line dispatches, comments and `retry` are skipped here.

export interface ServerSentEvent {
  /** `message` when the block names no event type. */
  event: string;
  data: string;
  /** The stream's last event id after this block (blocks without an id keep the previous one). */
  lastEventId: string;
}

export class EventStreamParser {
  lastEventId = "";
  private buffer = "";
  private event = "";
  private data: string[] = [];

  /** Takes the next piece of text; returns the events it completes. */
  push(text: string): ServerSentEvent[] {
    this.buffer += text;
    const dispatched: ServerSentEvent[] = [];
    let lineEnd: RegExpExecArray | null;
    const lineBreak = /\r\n|\r|\n/g;
    let consumed = 0;
    while ((lineEnd = lineBreak.exec(this.buffer))) {
      // A lone \r at the end may be the first half of \r\n: wait for the next piece.
      if (lineEnd[0] === "\r" && lineEnd.index === this.buffer.length - 1) break;
      const event = this.line(this.buffer.slice(consumed, lineEnd.index));
      if (event) dispatched.push(event);
      consumed = lineEnd.index + lineEnd[0].length;
    }
    this.buffer = this.buffer.slice(consumed);
    return dispatched;
  }

  private line(line: string): ServerSentEvent | null {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + (line[colon + 1] === " " ? 2 : 1));
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) this.lastEventId = value;
    return null;
  }

  private dispatch(): ServerSentEvent | null {
    const event = this.event || "message";
    const data = this.data;
    this.event = "";
    this.data = [];
    if (data.length === 0) return null;
    return { event, data: data.join("\n"), lastEventId: this.lastEventId };
  }
}

/** The events of a text/event-stream body, as they arrive; `parser` keeps the last event id. */
export async function* readEventStream(body: ReadableStream<Uint8Array>, parser = new EventStreamParser()): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
  } finally {
    // Also when the reader stops early: the connection is let go.
    await reader.cancel().catch(() => {});
  }
}
