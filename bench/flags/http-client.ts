// The load driver's HTTP/1.1 client: requests written as prepared bytes over a pool of
// keep-alive connections (Bun.connect), one request at a time per connection, each answer read
// to its last byte by Content-Length or chunked framing. The driver shares the machine's two
// cores with the server it measures, so what it spends per request is taken from the server:
// with Bun's fetch it used 1.1 cores at 5,000 requests/s, more than the service it drove
// (measured; bench/README.md). An answer is complete, as with fetch and arrayBuffer(), when its
// whole body has been read.
import type { Socket } from "bun";

/** A whole POST request as bytes, with Host and Content-Length, ready to write. */
export function postRequestBytes(url: URL, headers: Record<string, string>, body: string): Uint8Array {
  const bodyBytes = new TextEncoder().encode(body);
  const head = [`POST ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), `Content-Length: ${bodyBytes.length}`, "", ""].join("\r\n");
  const headBytes = new TextEncoder().encode(head);
  const bytes = new Uint8Array(headBytes.length + bodyBytes.length);
  bytes.set(headBytes);
  bytes.set(bodyBytes, headBytes.length);
  return bytes;
}

const CR = 13;
const LF = 10;
/** Longest answer head read; past it the answer counts as failed. */
const headBytesMax = 16 * 1024;

// Where the reader is in an answer.
const Phase = {
  head: 0,
  /** Body of known length: `remaining` bytes left. */
  body: 1,
  /** Chunked body: reading a chunk-size line. */
  chunkSize: 2,
  /** Chunked body: `remaining` bytes of chunk data, then its CRLF (2 more). */
  chunkData: 3,
  /** Chunked body: after the last chunk, the trailer section up to an empty line. */
  trailer: 4,
} as const;
type Phase = (typeof Phase)[keyof typeof Phase];

const endsWithLine = (bytes: number[]) => bytes.length >= 2 && bytes[bytes.length - 2] === CR && bytes[bytes.length - 1] === LF;
const endsWithBlankLine = (bytes: number[]) => bytes.length >= 4 && bytes[bytes.length - 4] === CR && bytes[bytes.length - 3] === LF && endsWithLine(bytes);

interface Exchange {
  resolve: (status: number) => void;
  /** Bytes of the request not yet written (the socket took only part). */
  unwritten: Uint8Array | null;
}

interface Connection {
  socket: Socket<Connection> | null;
  exchange: Exchange | null;
  phase: Phase;
  status: number;
  remaining: number;
  /** The answer head, or the current chunk-size or trailer line, as read so far. */
  line: number[];
  closeAfter: boolean;
}

/** Reads the status, Content-Length and Transfer-Encoding of an answer head (latin1 text). */
function parseHead(text: string): { status: number; length: number | null; chunked: boolean; close: boolean } | null {
  const lines = text.split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "");
  if (!status) return null;
  let length: number | null = null;
  let chunked = false;
  let close = false;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim().toLowerCase();
    if (name === "content-length") length = Number(value);
    else if (name === "transfer-encoding") chunked = value.split(",").some((coding) => coding.trim() === "chunked");
    else if (name === "connection") close = value === "close";
  }
  return { status: Number(status[1]), length, chunked, close };
}

/** Up to `connections` keep-alive connections to one server; requests beyond them wait their turn. */
export class HttpPool {
  private readonly idle: Connection[] = [];
  private readonly all = new Set<Connection>();
  private readonly waiting: { bytes: Uint8Array; resolve: (status: number) => void }[] = [];
  private opening = 0;
  private closed = false;

  constructor(
    private readonly hostname: string,
    private readonly port: number,
    private readonly connections: number,
  ) {}

  static forUrl(url: URL, connections: number): HttpPool {
    return new HttpPool(url.hostname, Number(url.port || 80), connections);
  }

  /** Sends `bytes` (a whole request) and resolves with the answer's status once it is read; 0 when it failed. */
  send(bytes: Uint8Array): Promise<number> {
    return new Promise((resolve) => {
      if (this.closed) return resolve(0);
      const connection = this.idle.pop();
      if (connection) this.start(connection, bytes, resolve);
      else if (this.all.size + this.opening < this.connections) void this.open(bytes, resolve);
      else this.waiting.push({ bytes, resolve });
    });
  }

  /** Closes every connection; exchanges in progress resolve 0. */
  close(): void {
    this.closed = true;
    for (const { resolve } of this.waiting.splice(0)) resolve(0);
    for (const connection of this.all) connection.socket?.end();
  }

  private async open(bytes: Uint8Array, resolve: (status: number) => void): Promise<void> {
    this.opening++;
    const connection: Connection = { socket: null, exchange: null, phase: Phase.head, status: 0, remaining: 0, line: [], closeAfter: false };
    try {
      connection.socket = await Bun.connect<Connection>({
        hostname: this.hostname,
        port: this.port,
        data: connection,
        socket: {
          data: (socket, chunk) => this.read(socket.data, chunk),
          drain: (socket) => this.write(socket.data),
          close: (socket) => this.lost(socket.data),
          error: (socket) => this.lost(socket.data),
        },
      });
    } catch {
      this.opening--;
      resolve(0);
      this.next();
      return;
    }
    this.opening--;
    this.all.add(connection);
    this.start(connection, bytes, resolve);
  }

  private start(connection: Connection, bytes: Uint8Array, resolve: (status: number) => void): void {
    connection.exchange = { resolve, unwritten: bytes };
    connection.phase = Phase.head;
    connection.line.length = 0;
    this.write(connection);
  }

  private write(connection: Connection): void {
    const exchange = connection.exchange;
    if (!exchange?.unwritten || !connection.socket) return;
    const written = connection.socket.write(exchange.unwritten);
    exchange.unwritten = written >= exchange.unwritten.length ? null : exchange.unwritten.subarray(Math.max(0, written));
  }

  private finish(connection: Connection, status: number): void {
    const exchange = connection.exchange;
    connection.exchange = null;
    if (connection.closeAfter || status === 0) {
      this.all.delete(connection);
      connection.socket?.end();
      connection.socket = null;
    } else this.idle.push(connection);
    exchange?.resolve(status);
    this.next();
  }

  // Hands the connection just freed (or a new one) to the oldest waiting request.
  private next(): void {
    if (this.waiting.length === 0) return;
    const connection = this.idle.pop();
    const { bytes, resolve } = this.waiting.shift()!;
    if (connection) this.start(connection, bytes, resolve);
    else if (this.all.size + this.opening < this.connections) void this.open(bytes, resolve);
    else this.waiting.unshift({ bytes, resolve });
  }

  private lost(connection: Connection): void {
    if (!this.all.has(connection)) return;
    this.all.delete(connection);
    const index = this.idle.indexOf(connection);
    if (index >= 0) this.idle.splice(index, 1);
    connection.socket = null;
    if (connection.exchange) this.finish(connection, 0);
  }

  private read(connection: Connection, chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length && connection.exchange) {
      switch (connection.phase) {
        case Phase.head: {
          // The head ends with an empty line (CRLF CRLF).
          const line = connection.line;
          while (at < chunk.length && !endsWithBlankLine(line)) {
            line.push(chunk[at++]!);
            if (line.length > headBytesMax) return this.finish(connection, 0);
          }
          if (!endsWithBlankLine(line)) break;
          const head = parseHead(String.fromCharCode(...line));
          line.length = 0;
          if (!head || (!head.chunked && head.length === null)) return this.finish(connection, 0);
          connection.status = head.status;
          connection.closeAfter = head.close;
          if (head.chunked) connection.phase = Phase.chunkSize;
          else {
            connection.phase = Phase.body;
            connection.remaining = head.length!;
            if (connection.remaining === 0) return this.finish(connection, connection.status);
          }
          break;
        }
        case Phase.body: {
          const take = Math.min(connection.remaining, chunk.length - at);
          at += take;
          connection.remaining -= take;
          if (connection.remaining === 0) return this.finish(connection, connection.status);
          break;
        }
        case Phase.chunkSize:
        case Phase.trailer: {
          const line = connection.line;
          while (at < chunk.length && !endsWithLine(line)) line.push(chunk[at++]!);
          if (!endsWithLine(line)) break;
          const text = String.fromCharCode(...line.slice(0, -2));
          line.length = 0;
          if (connection.phase === Phase.trailer) {
            if (text === "") return this.finish(connection, connection.status);
            break;
          }
          const size = parseInt(text.split(";")[0]!.trim(), 16);
          if (!Number.isFinite(size)) return this.finish(connection, 0);
          if (size === 0) connection.phase = Phase.trailer;
          else {
            connection.phase = Phase.chunkData;
            connection.remaining = size + 2;
          }
          break;
        }
        case Phase.chunkData: {
          const take = Math.min(connection.remaining, chunk.length - at);
          at += take;
          connection.remaining -= take;
          if (connection.remaining === 0) connection.phase = Phase.chunkSize;
          break;
        }
      }
    }
  }
}
