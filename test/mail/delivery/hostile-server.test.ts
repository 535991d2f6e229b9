// MX hosts that do not play by the rules: garbage instead of SMTP, replies without end,
// terminal escape sequences, silence. Each attempt must end, bounded, and be deferred.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import net from "node:net";
import { createMailDnsResolver } from "../../../server/mail/delivery/mx.ts";
import { deliver, type DeliveryResult } from "../../../server/mail/delivery/smtp-delivery.ts";
import { transcriptEntryCharsMax } from "../../../server/mail/delivery/transcript.ts";
import { TestDnsServer } from "../helpers/dns-server.ts";

const dkim = {
  domainName: "sender.test",
  keySelector: "s1",
  privateKey: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
};
const message = Buffer.from("From: hello@sender.test\r\nTo: victim@hostile.test\r\nSubject: hi\r\n\r\nHello\r\n");
const timeouts = { connectMs: 1_000, greetingMs: 400, commandMs: 400, sessionMs: 3_000 };

let dnsServer: TestDnsServer;
let server: net.Server | undefined;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  dnsServer = await TestDnsServer.start();
  dnsServer.set("hostile.test", { MX: [{ exchange: "mx.hostile.test", priority: 10 }] });
  dnsServer.set("mx.hostile.test", { A: ["127.0.0.1"] });
});
afterAll(() => dnsServer.close());
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A TCP server that runs `script` for each connection; lines the client sends are handed to `onLine`. */
async function hostileServer(script: (socket: net.Socket) => void, onLine: (socket: net.Socket, line: string) => void = () => {}): Promise<number> {
  server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      for (let end = buffered.indexOf("\r\n"); end >= 0; end = buffered.indexOf("\r\n")) {
        onLine(socket, buffered.slice(0, end));
        buffered = buffered.slice(end + 2);
      }
    });
    script(socket);
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return (server!.address() as net.AddressInfo).port;
}

const attempt = (port: number, sessionMs = timeouts.sessionMs): Promise<DeliveryResult> =>
  deliver({
    message,
    dkim,
    envelopeFrom: "bounces@sender.test",
    recipients: ["victim@hostile.test"],
    heloName: "out.sender.test",
    route: { mode: "direct", resolver: createMailDnsResolver(dnsServer.servers), port },
    timeouts: { ...timeouts, sessionMs },
  });

const summary = (result: DeliveryResult) => result.recipients.map(({ outcome, code, reason }) => ({ outcome, code, reason }));
const longestEntry = (result: DeliveryResult) => Math.max(...result.transcript.entries.map((entry) => entry.text.length));

describe("hostile MX hosts", () => {
  test("an HTTP server instead of SMTP: protocol error, deferred", async () => {
    const port = await hostileServer((socket) => socket.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"));
    const result = await attempt(port);
    expect(summary(result)).toEqual([{ outcome: "deferred", code: null, reason: "protocol_error" }]);
    expect(result.transcript.entries.filter((entry) => entry.from === "server").map((entry) => entry.text)[0]).toBe("HTTP/1.1 400 Bad Request");
  });

  test("a 5xx greeting: the host refuses us, deferred (another host or a later attempt may take it)", async () => {
    const port = await hostileServer((socket) => socket.write("554 5.7.1 No SMTP service here\r\n"));
    const result = await attempt(port);
    expect(result.recipients).toEqual([
      { recipient: "victim@hostile.test", outcome: "deferred", code: 554, enhancedCode: "5.7.1", text: "No SMTP service here", mxHost: "mx.hostile.test", reason: "protocol_error" },
    ]);
  });

  test("a greeting line that never ends is cut off, and the transcript stays bounded", async () => {
    const port = await hostileServer((socket) => socket.write(`220 ${"A".repeat(300_000)}`));
    const result = await attempt(port);
    expect(summary(result)).toEqual([{ outcome: "deferred", code: null, reason: "protocol_error" }]);
    expect(result.recipients[0]!.text).toContain("exceeds maximum allowed size");
    expect(JSON.stringify(result).length).toBeLessThan(20_000);
  });

  test("a multi-line reply without end is cut off", async () => {
    const port = await hostileServer((socket) => socket.write("220-hello\r\n".repeat(50_000)));
    const result = await attempt(port);
    expect(summary(result)).toEqual([{ outcome: "deferred", code: null, reason: "protocol_error" }]);
    expect(longestEntry(result)).toBeLessThanOrEqual(transcriptEntryCharsMax + 40);
    expect(JSON.stringify(result).length).toBeLessThan(20_000);
  });

  test("terminal escape sequences in replies are escaped in the transcript and in the outcome", async () => {
    const replies: Record<string, string> = {
      EHLO: "250 mx.hostile.test",
      MAIL: "250 ok",
      RCPT: "550 5.1.1 \x1b[2J\x1b[31mgone\x07",
    };
    const port = await hostileServer(
      (socket) => socket.write("220 mx.hostile.test \x1b]0;owned\x07 ESMTP\r\n"),
      (socket, line) => {
        const reply = replies[line.split(/[ :]/)[0]!.toUpperCase()];
        socket.write(`${reply ?? "221 bye"}\r\n`);
      },
    );
    const result = await attempt(port);
    expect(result.recipients).toEqual([
      { recipient: "victim@hostile.test", outcome: "bounced", code: 550, enhancedCode: "5.1.1", text: "\\x1b[2J\\x1b[31mgone\\x07", mxHost: "mx.hostile.test", reason: null },
    ]);
    expect(result.transcript.entries.filter((entry) => entry.from === "server").map((entry) => entry.text)[0]).toBe("220 mx.hostile.test \\x1b]0;owned\\x07 ESMTP");
    expect(result.transcript.entries.some((entry) => /[\x00-\x08\x0b-\x1f\x7f]/.test(entry.text))).toBe(false);
  });

  test("a server that never greets: the greeting time-out ends it", async () => {
    const port = await hostileServer(() => {});
    const result = await attempt(port);
    expect(summary(result)).toEqual([{ outcome: "deferred", code: null, reason: "timeout" }]);
    expect(result.durationMs).toBeLessThan(timeouts.sessionMs);
  });

  test("a server that goes silent mid-transaction: the command time-out ends it", async () => {
    const port = await hostileServer(
      (socket) => socket.write("220 mx.hostile.test ESMTP\r\n"),
      (socket, line) => {
        if (/^EHLO/i.test(line)) socket.write("250 mx.hostile.test\r\n");
      },
    );
    const result = await attempt(port);
    expect(summary(result)).toEqual([{ outcome: "deferred", code: null, reason: "timeout" }]);
    expect(result.transcript.entries.filter((entry) => entry.from === "client").map((entry) => entry.text)).toEqual(["EHLO out.sender.test", "MAIL FROM:<bounces@sender.test>"]);
  });

  test("an MX whose STARTTLS handshake breaks gets the message in plaintext on a second connection, as MTAs do", async () => {
    let connections = 0;
    const received: string[] = [];
    const inData = new WeakSet<net.Socket>();
    const port = await hostileServer(
      (socket) => {
        connections++;
        socket.write("220 mx.hostile.test ESMTP\r\n");
      },
      (socket, line) => {
        if (inData.has(socket)) {
          if (line === ".") {
            inData.delete(socket);
            socket.write("250 2.0.0 queued\r\n");
          } else received.push(line);
          return;
        }
        const verb = line.split(/[ :]/)[0]!.toUpperCase();
        if (verb === "EHLO") socket.write("250-mx.hostile.test\r\n250 STARTTLS\r\n");
        else if (verb === "STARTTLS") socket.end("220 go ahead\r\nthis is not a TLS handshake\r\n");
        else if (verb === "DATA") {
          inData.add(socket);
          socket.write("354 go\r\n");
        } else if (verb === "QUIT") socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      },
    );
    const result = await attempt(port);
    expect({ summary: summary(result), tls: result.tls, connections }).toEqual({ summary: [{ outcome: "delivered", code: 250, reason: null }], tls: false, connections: 2 });
    expect(result.transcript.entries.some((entry) => entry.from === "event" && entry.text.includes("retrying mx.hostile.test without STARTTLS"))).toBe(true);
    expect(received).toContain("Hello");
  });

  test("a server that keeps a reply going, a line at a time, within every silence limit: the session time limit ends it", async () => {
    const sessionMs = 1_000;
    const port = await hostileServer(
      (socket) => socket.write("220 mx.hostile.test ESMTP\r\n"),
      (socket, line) => {
        if (!/^EHLO/i.test(line)) return;
        const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write("250-still going\r\n")), 50);
        socket.on("close", () => clearInterval(drip));
      },
    );
    const result = await attempt(port, sessionMs);
    expect(summary(result)).toEqual([{ outcome: "deferred", code: null, reason: "timeout" }]);
    expect(result.recipients[0]!.text).toBe(`the session took longer than ${sessionMs} ms`);
    expect(result.durationMs).toBeGreaterThanOrEqual(sessionMs);
    expect(result.durationMs).toBeLessThan(sessionMs + 1_000);
  });
});
