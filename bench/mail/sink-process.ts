// The recipients' MX for the benchmark, in a process of its own so its CPU is not the mail
// service's: smtp-server on 127.0.0.1 accepting every message, offering STARTTLS (a certificate
// made at start) as real MXes do, and counting what arrived. An HTTP control server answers
// GET /counts (and POST /reset) so the driver can check that every email arrived once, signed.
// Prints "sink smtp <port> listening on <control url> " when ready.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { makeSelfSignedCertificate } from "../../test/mail/helpers/self-signed-certificate.ts";
import { recipientMx } from "./requests.ts";

export interface SinkCounts {
  messages: number;
  recipients: number;
  /** Messages whose first header is a DKIM-Signature. */
  signed: number;
  /** Messages that came over TLS (STARTTLS). */
  secure: number;
  /** Distinct Message-IDs among them (a message delivered twice counts once here). */
  distinctMessageIds: number;
  bytes: number;
  connections: number;
  /** performance.timeOrigin + now() of the last message accepted, ms. */
  lastMessageAtMs: number;
}

const certificate = makeSelfSignedCertificate(recipientMx);
let counts: SinkCounts;
let messageIds: Set<string>;
const reset = () => {
  counts = { messages: 0, recipients: 0, signed: 0, secure: 0, distinctMessageIds: 0, bytes: 0, connections: 0, lastMessageAtMs: 0 };
  messageIds = new Set();
};
reset();

const messageIdPattern = /^Message-ID:\s*(<[^>\r\n]+>)/im;
const server = new SMTPServer({
  name: recipientMx,
  key: certificate.keyPem,
  cert: certificate.certificatePem,
  disabledCommands: ["AUTH"],
  authOptional: true,
  disableReverseLookup: true,
  logger: false,
  onConnect: (_session, callback) => {
    counts.connections++;
    callback();
  },
  onData: (stream, session, callback) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      const raw = Buffer.concat(chunks);
      const head = raw.subarray(0, raw.indexOf("\r\n\r\n") + 2 || raw.length).toString("latin1");
      counts.messages++;
      counts.recipients += session.envelope.rcptTo.length;
      counts.bytes += raw.length;
      if (head.startsWith("DKIM-Signature:")) counts.signed++;
      if (session.secure) counts.secure++;
      const messageId = messageIdPattern.exec(head)?.[1];
      if (messageId) messageIds.add(messageId);
      counts.distinctMessageIds = messageIds.size;
      counts.lastMessageAtMs = performance.timeOrigin + performance.now();
      callback(null);
    });
  },
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const smtpPort = (server.server.address() as AddressInfo).port;

const control = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/counts") return Response.json(counts);
    if (path === "/reset" && request.method === "POST") {
      reset();
      return Response.json(counts);
    }
    return new Response("not found", { status: 404 });
  },
});
process.on("SIGTERM", () => {
  control.stop(true);
  server.close(() => process.exit(0));
});
console.log(`sink smtp ${smtpPort} listening on ${control.url.origin} `);
