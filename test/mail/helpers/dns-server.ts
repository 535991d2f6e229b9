// A real DNS server on 127.0.0.1 (dns2, UDP and TCP on the same port, since a resolver retries
// a truncated UDP answer over TCP on that port) whose records each test sets. Names it has
// no records for answer NXDOMAIN; a known name without records of the asked type answers
// NOERROR with no answers (NODATA), as an authoritative server does.
import type { AddressInfo } from "node:net";
import { Packet, UDPClient, createTCPServer, createUDPServer, type DnsHandler, type Resource, type TCPServer, type UDPServer } from "dns2";

export type MxRecord = { exchange: string; priority: number };
export type DnsRecords = {
  A?: string[];
  AAAA?: string[];
  MX?: MxRecord[];
  /** Each string is one TXT record; strings longer than 255 bytes are sent as several character-strings. */
  TXT?: string[];
};
/** What a name answers instead of its records: an error code, or no answer at all (a time-out). */
export type DnsFailure = "SERVFAIL" | "REFUSED" | "no-answer";
export type DnsQuery = { name: string; type: string };
/** The shape of mailauth's `resolver` option (and of node's `dns.promises.resolve`). */
export type DnsResolveFunction = (name: string, rrtype: string) => Promise<string[][] | string[]>;

const characterStringBytesMax = 255;
const freePortAttemptsMax = 20;
const clientTimeoutMs = 2_000;

// RFC 1035 section 4.1.1 response codes (dns2 has them at run time, but its types leave them out)
const rcode = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;
const typeNames = new Map<number, string>(Object.entries(Packet.TYPE).map(([name, code]) => [code as number, name]));
const normalized = (name: string) => name.toLowerCase().replace(/\.$/, "");

/** Splits a TXT value into the 255-byte character-strings one TXT record is made of (RFC 1035 section 3.3.14). */
export function txtCharacterStrings(value: string): Buffer[] {
  const bytes = Buffer.from(value, "utf8");
  const strings: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += characterStringBytesMax) strings.push(bytes.subarray(start, start + characterStringBytesMax));
  return strings.length ? strings : [Buffer.alloc(0)];
}

export class TestDnsServer {
  readonly queries: DnsQuery[] = [];
  private readonly zones = new Map<string, DnsRecords>();
  private readonly failures = new Map<string, DnsFailure>();

  private constructor(
    private readonly udp: UDPServer,
    private readonly tcp: TCPServer,
    readonly port: number,
  ) {}

  static async start(): Promise<TestDnsServer> {
    for (let attempt = 0; attempt < freePortAttemptsMax; attempt++) {
      let server: TestDnsServer | undefined;
      const handler: DnsHandler = (request, send) => server?.answer(request, send);
      const udp = createUDPServer(handler);
      await udp.listen(0, "127.0.0.1");
      const port = (udp.address() as AddressInfo).port;
      const tcp = createTCPServer(handler);
      const listening = await new Promise<boolean>((resolve) => {
        tcp.once("error", () => resolve(false));
        tcp.listen(port, "127.0.0.1", () => resolve(true));
      });
      if (listening) {
        server = new TestDnsServer(udp, tcp, port);
        return server;
      }
      udp.close();
    }
    throw new Error(`no port free for both UDP and TCP after ${freePortAttemptsMax} attempts`);
  }

  /** For `Resolver#setServers`. */
  get servers(): string[] {
    return [`127.0.0.1:${this.port}`];
  }

  /** Replaces the records of `name`; `{}` makes the name exist with no records (NODATA for every type). */
  set(name: string, records: DnsRecords): void {
    this.zones.set(normalized(name), records);
  }

  fail(name: string, failure: DnsFailure): void {
    this.failures.set(normalized(name), failure);
  }

  clear(): void {
    this.zones.clear();
    this.failures.clear();
    this.queries.length = 0;
  }

  /**
   * A resolver in the shape of node's `dns.promises.resolve`, answered by this server through
   * dns2's client (UDP, then TCP when the answer was truncated). Bun's own `resolveTxt` returns
   * each character-string of a TXT record as a record of its own, which breaks a long DKIM
   * key, so mailauth is given this one in tests.
   */
  readonly resolve: DnsResolveFunction = async (name, rrtype) => {
    const query = UDPClient({ dns: "127.0.0.1", port: this.port, timeout: clientTimeoutMs, retryOverTCP: true });
    const response = await query(name, rrtype);
    const error = (code: string) => Object.assign(new Error(`query${rrtype} ${code} ${name}`), { code, hostname: name });
    if (response.header.rcode === rcode.NXDOMAIN) throw error("ENOTFOUND");
    if (response.header.rcode !== rcode.NOERROR) throw error("ESERVFAIL");
    const answers = response.answers.filter((answer) => typeNames.get(answer.type) === rrtype);
    if (!answers.length) throw error("ENODATA");
    if (rrtype === "TXT") return answers.map((answer) => [answer.data ?? []].flat());
    return answers.map((answer) => answer.address ?? answer.exchange ?? "");
  };

  async close(): Promise<void> {
    await Promise.all([
      new Promise<void>((resolve) => this.udp.close(() => resolve())),
      new Promise<void>((resolve) => this.tcp.close(() => resolve())),
    ]);
  }

  private answer(request: Packet, send: (response: Packet) => Promise<Buffer>): void {
    const [question] = request.questions;
    if (!question) return;
    const name = normalized(question.name);
    const type = typeNames.get(question.type) ?? String(question.type);
    this.queries.push({ name, type });
    const response = Packet.createResponseFromRequest(request);
    const failure = this.failures.get(name);
    if (failure === "no-answer") return;
    if (failure) {
      response.header.rcode = rcode[failure];
      void send(response);
      return;
    }
    const records = this.zones.get(name);
    if (!records) {
      response.header.rcode = rcode.NXDOMAIN;
      void send(response);
      return;
    }
    const base = { name: question.name, class: Packet.CLASS.IN, ttl: 60 };
    for (const address of type === "A" ? (records.A ?? []) : []) response.answers.push({ ...base, type: Packet.TYPE.A, address } as Resource);
    for (const address of type === "AAAA" ? (records.AAAA ?? []) : []) response.answers.push({ ...base, type: Packet.TYPE.AAAA, address } as Resource);
    for (const mx of type === "MX" ? (records.MX ?? []) : []) response.answers.push({ ...base, type: Packet.TYPE.MX, ...mx } as Resource);
    for (const value of type === "TXT" ? (records.TXT ?? []) : []) {
      response.answers.push({ ...base, type: Packet.TYPE.TXT, data: txtCharacterStrings(value) } as unknown as Resource);
    }
    void send(response);
  }
}
