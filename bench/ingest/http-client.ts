// A minimal HTTP/1.1 client for the load driver: one keep-alive TCP connection, one request at
// a time, bodies written as bytes, answers read by Content-Length. The driver shares the
// machine with the server it measures, so its own CPU is taken from the server: fetch cost
// about 70 us per 100-event request here, this about a tenth of that (what wrk, the tool the
// issue's figure came from, spends is of that order too).
import type { Socket } from "bun";

export interface HttpAnswer {
  status: number;
  body: string;
}

const headerEnd = new TextEncoder().encode("\r\n\r\n");
const decoder = new TextDecoder();

function indexOfHeaderEnd(bytes: Uint8Array, from: number): number {
  for (let i = Math.max(0, from); i + 3 < bytes.length; i++) {
    if (bytes[i] === headerEnd[0] && bytes[i + 1] === headerEnd[1] && bytes[i + 2] === headerEnd[2] && bytes[i + 3] === headerEnd[3]) return i;
  }
  return -1;
}

export class HttpConnection {
  private received = new Uint8Array(4096);
  private receivedBytes = 0;
  private waiting: { resolve: (answer: HttpAnswer) => void; reject: (error: Error) => void } | null = null;
  private closedError: Error | null = null;
  /** Bytes the socket did not take yet (written on `drain`). */
  private unsent: Uint8Array[] = [];

  private constructor(private socket: Socket<undefined> | null, private readonly requestHead: string) {}

  /** A connection to `url`'s host whose requests POST to its path with `headers`. */
  static async open(url: string, headers: Record<string, string>): Promise<HttpConnection> {
    const { hostname, port, pathname, search } = new URL(url);
    const head = [`POST ${pathname}${search} HTTP/1.1`, `Host: ${hostname}:${port}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)].join("\r\n");
    const connection = new HttpConnection(null, head);
    connection.socket = await Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        data: (_socket, chunk) => connection.receive(chunk),
        drain: () => connection.send(),
        close: () => connection.fail(new Error("connection closed")),
        error: (_socket, error) => connection.fail(error),
      },
    });
    return connection;
  }

  private fail(error: Error): void {
    this.closedError = error;
    this.waiting?.reject(error);
    this.waiting = null;
  }

  private receive(chunk: Uint8Array): void {
    if (this.receivedBytes + chunk.byteLength > this.received.byteLength) {
      const bigger = new Uint8Array(Math.max(2 * this.received.byteLength, this.receivedBytes + chunk.byteLength));
      bigger.set(this.received.subarray(0, this.receivedBytes));
      this.received = bigger;
    }
    this.received.set(chunk, this.receivedBytes);
    const searchFrom = this.receivedBytes - 3;
    this.receivedBytes += chunk.byteLength;
    const end = indexOfHeaderEnd(this.received.subarray(0, this.receivedBytes), searchFrom < 0 ? 0 : searchFrom);
    if (end < 0) return;
    const head = decoder.decode(this.received.subarray(0, end));
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
    if (!Number.isFinite(length)) {
      this.fail(new Error(`answer without Content-Length: ${head.split("\r\n")[0]}`));
      return;
    }
    const bodyStart = end + headerEnd.length;
    if (this.receivedBytes < bodyStart + length) return;
    const answer = { status: Number(head.slice(9, 12)), body: decoder.decode(this.received.subarray(bodyStart, bodyStart + length)) };
    // One request at a time: nothing follows the answer.
    this.receivedBytes = 0;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve(answer);
  }

  /** Writes what is unsent until the socket stops taking bytes. */
  private send(): void {
    while (this.unsent.length > 0) {
      const bytes = this.unsent[0]!;
      const written = this.socket!.write(bytes);
      if (written < bytes.byteLength) {
        this.unsent[0] = bytes.subarray(Math.max(0, written));
        return;
      }
      this.unsent.shift();
    }
  }

  /** POSTs `body` and resolves with the answer. */
  post(body: Uint8Array): Promise<HttpAnswer> {
    if (this.closedError) return Promise.reject(this.closedError);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.unsent.push(new TextEncoder().encode(`${this.requestHead}\r\nContent-Length: ${body.byteLength}\r\n\r\n`), body);
      this.send();
    });
  }

  close(): void {
    this.socket?.end();
  }
}
