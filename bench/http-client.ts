// The load drivers' HTTP/1.1 client (bench/flags, bench/ingest): requests written as prepared
// bytes over a pool of keep-alive connections (Bun.connect), one request at a time per
// connection, each answer read to its last byte by Content-Length or chunked framing. A driver
// shares the machine's two cores with the server it measures, so what it spends per request is
// taken from the server: with Bun's fetch the flags driver used 1.1 cores at 5,000 requests/s,
// more than the service it drove, and the ingest driver about 70 us per 100-event batch
// (measured; bench/README.md). An answer is complete, as with fetch and arrayBuffer(), when its
// whole body has been read; its body is kept only when asked for (exchange()).
import type { Socket } from "bun";

/** The head of a POST request with a body of `bodyBytes` bytes (Host and Content-Length included). */
export function postRequestHead(url: URL, headers: Record<string, string>, bodyBytes: number): Uint8Array {
  const head = [`POST ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), `Content-Length: ${bodyBytes}`, "", ""].join("\r\n");
  return new TextEncoder().encode(head);
}

/** A whole POST request as bytes, with Host and Content-Length, ready to write. */
export function postRequestBytes(url: URL, headers: Record<string, string>, body: string | Uint8Array): Uint8Array {
  const bodyBytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const headBytes = postRequestHead(url, headers, bodyBytes.length);
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
/** What ends an answer head. */
const headEnd = [CR, LF, CR, LF];
const latin1 = new TextDecoder("latin1");

/** An answer's status (0 when the exchange failed) and, when it was asked for, its body. */
export interface HttpAnswer {
  status: number;
  body: string | null;
}

interface Exchange {
  resolve: (answer: HttpAnswer) => void;
  /** Bytes of the request not yet written (the socket took only part). */
  unwritten: Uint8Array | null;
  /** The answer's body as read so far, when it is wanted. */
  body: Uint8Array[] | null;
}

interface Waiting {
  bytes: Uint8Array;
  keepBody: boolean;
  resolve: (answer: HttpAnswer) => void;
}

const decoder = new TextDecoder();
const failed: HttpAnswer = { status: 0, body: null };

interface Connection {
  socket: Socket<Connection> | null;
  exchange: Exchange | null;
  phase: Phase;
  status: number;
  remaining: number;
  /** The answer head as read so far (headBytes of it), and how much of its closing CRLF CRLF the last bytes were. */
  head: Uint8Array;
  headBytes: number;
  headEndMatched: number;
  /** The current chunk-size or trailer line, as read so far. */
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
  private readonly waiting: Waiting[] = [];
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
  async send(bytes: Uint8Array): Promise<number> {
    return (await this.request({ bytes, keepBody: false })).status;
  }

  /** Sends `bytes` (a whole request) and resolves with the answer's status and body once it is read. */
  exchange(bytes: Uint8Array): Promise<HttpAnswer> {
    return this.request({ bytes, keepBody: true });
  }

  private request(request: Omit<Waiting, "resolve">): Promise<HttpAnswer> {
    return new Promise((resolve) => {
      if (this.closed) return resolve(failed);
      const waiting = { ...request, resolve };
      const connection = this.idle.pop();
      if (connection) this.start(connection, waiting);
      else if (this.all.size + this.opening < this.connections) void this.open(waiting);
      else this.waiting.push(waiting);
    });
  }

  /** Closes every connection; exchanges in progress resolve 0. */
  close(): void {
    this.closed = true;
    for (const { resolve } of this.waiting.splice(0)) resolve(failed);
    for (const connection of this.all) connection.socket?.end();
  }

  private async open(request: Waiting): Promise<void> {
    this.opening++;
    const connection: Connection = {
      socket: null, exchange: null, phase: Phase.head, status: 0, remaining: 0, head: new Uint8Array(headBytesMax), headBytes: 0, headEndMatched: 0, line: [], closeAfter: false,
    };
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
      request.resolve(failed);
      this.next();
      return;
    }
    this.opening--;
    this.all.add(connection);
    this.start(connection, request);
  }

  private start(connection: Connection, { bytes, keepBody, resolve }: Waiting): void {
    connection.exchange = { resolve, unwritten: bytes, body: keepBody ? [] : null };
    connection.phase = Phase.head;
    connection.line.length = 0;
    connection.headBytes = 0;
    connection.headEndMatched = 0;
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
    if (exchange) {
      const body = exchange.body === null || status === 0 ? null : decoder.decode(Buffer.concat(exchange.body));
      exchange.resolve({ status, body });
    }
    this.next();
  }

  // Hands the connection just freed (or a new one) to the oldest waiting request.
  private next(): void {
    if (this.waiting.length === 0) return;
    const connection = this.idle.pop();
    const waiting = this.waiting.shift()!;
    if (connection) this.start(connection, waiting);
    else if (this.all.size + this.opening < this.connections) void this.open(waiting);
    else this.waiting.unshift(waiting);
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
          // The head ends with an empty line (CRLF CRLF); its bytes are copied as they are scanned.
          let matched = connection.headEndMatched;
          const from = at;
          while (at < chunk.length && matched < headEnd.length) {
            const byte = chunk[at++]!;
            matched = byte === headEnd[matched] ? matched + 1 : byte === CR ? 1 : 0;
          }
          connection.headEndMatched = matched;
          if (connection.headBytes + at - from > headBytesMax) return this.finish(connection, 0);
          connection.head.set(chunk.subarray(from, at), connection.headBytes);
          connection.headBytes += at - from;
          if (matched < headEnd.length) break;
          const head = parseHead(latin1.decode(connection.head.subarray(0, connection.headBytes)));
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
          connection.exchange.body?.push(chunk.slice(at, at + take));
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
          // The chunk's data, without the CRLF that ends it (its last 2 of `remaining`).
          const data = Math.max(0, Math.min(take, connection.remaining - 2));
          connection.exchange.body?.push(chunk.slice(at, at + data));
          at += take;
          connection.remaining -= take;
          if (connection.remaining === 0) connection.phase = Phase.chunkSize;
          break;
        }
      }
    }
  }
}
