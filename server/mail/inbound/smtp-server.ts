// Our inbound MX (smtp-server): the greeting names MAIL_HOSTNAME; no AUTH (nobody submits mail
// here, we only receive it); STARTTLS only when a key and certificate are configured; SIZE
// advertised and enforced; recipients, connections and idle time bounded. Replies carry enhanced
// status codes (RFC 3463). A recipient we do not serve is refused at RCPT TO with 550 5.1.1:
// we are not a relay.
import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import { oneLine } from "../bounces/text.ts";
import type { SmtpClient } from "./authentication.ts";
import type { InboundRoute } from "./recipients.ts";

/** Largest message accepted (advertised with SIZE; larger ones are answered 552 5.3.4). */
export const inboundMessageBytesMax = 25 * 1024 * 1024;
/** Most recipients of one message (more are answered 452 4.5.3, as RFC 5321 says). */
export const inboundRecipientsMax = 100;
/** Most connections at once (more are answered 421 and closed). */
export const inboundConnectionsMax = 200;
/** A connection idle this long is closed. */
export const inboundSocketTimeoutMs = 60_000;
/** On shutdown, connections still open after this long are closed. */
export const inboundCloseTimeoutMs = 5_000;
/** Most characters of a hostile value in a log line. */
const loggedCharsMax = 200;

export const refusedRecipientText = "mailbox unavailable: this server accepts mail only for the receiving domains of its accounts and their return paths (it is not a relay)";

export interface InboundSmtpOptions {
  host: string;
  port: number;
  /** The name in the greeting (MAIL_HOSTNAME). */
  hostname: string;
  tls: { key: string; cert: string } | null;
  /** Whom a recipient belongs to; none: refused. */
  routesOf(rcptTo: string): Promise<InboundRoute[]>;
  /** Takes an accepted message; when it throws, the client is told to try again later (451). */
  receive(client: SmtpClient, routes: InboundRoute[], raw: Buffer): Promise<void>;
  log(line: string): void;
}

export interface InboundSmtpServer {
  port: number;
  close(): Promise<void>;
}

const smtpError = (code: number, text: string) => Object.assign(new Error(text), { responseCode: code });

export async function startInboundSmtp(options: InboundSmtpOptions): Promise<InboundSmtpServer> {
  // The routes of each accepted recipient, found at RCPT TO; smtp-server keeps these address objects in the envelope.
  const routesByRecipient = new WeakMap<SMTPServerAddress, InboundRoute[]>();

  const onRcptTo = (address: SMTPServerAddress, _session: SMTPServerSession, callback: (error?: Error | null) => void) => {
    options.routesOf(address.address).then(
      (routes) => {
        if (routes.length === 0) return callback(smtpError(550, refusedRecipientText));
        routesByRecipient.set(address, routes);
        callback();
      },
      (error: Error) => {
        options.log(`mail: inbound recipient check failed: ${oneLine(error.message, loggedCharsMax)}`);
        callback(smtpError(451, "temporary failure, try again later"));
      },
    );
  };

  const onData = (stream: SMTPServerDataStream, session: SMTPServerSession, callback: (error?: Error | null) => void) => {
    const chunks: Buffer[] = [];
    // Past the limit nothing more is kept: smtp-server answers 552 once the data ends.
    stream.on("data", (chunk: Buffer) => {
      if (!stream.sizeExceeded) chunks.push(chunk);
    });
    stream.on("end", () => {
      if (stream.sizeExceeded) return callback(smtpError(552, "message too large"));
      const raw = Buffer.concat(chunks);
      // RFC 5322 allows no NUL in a message, and the store keeps its bytes as text.
      if (raw.includes(0)) return callback(smtpError(554, "the message contains NUL bytes, which RFC 5322 does not allow"));
      const routes = session.envelope.rcptTo.flatMap((recipient) => routesByRecipient.get(recipient) ?? []);
      const client: SmtpClient = { ip: session.remoteAddress, helo: session.hostNameAppearsAs ?? "", mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "" };
      options.receive(client, routes, raw).then(
        () => callback(),
        (error: Error) => {
          options.log(`mail: an inbound message could not be taken: ${oneLine(error.message, loggedCharsMax)}`);
          callback(smtpError(451, "temporary failure, try again later"));
        },
      );
    });
  };

  const server = new SMTPServer({
    name: options.hostname,
    banner: "ready",
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    disabledCommands: options.tls ? ["AUTH"] : ["AUTH", "STARTTLS"],
    authOptional: true,
    disableReverseLookup: true,
    hideENHANCEDSTATUSCODES: false,
    size: inboundMessageBytesMax,
    rejectOversized: true,
    maxRecipients: inboundRecipientsMax,
    maxClients: inboundConnectionsMax,
    socketTimeout: inboundSocketTimeoutMs,
    closeTimeout: inboundCloseTimeoutMs,
    logger: false,
    onRcptTo,
    onData,
  });
  server.on("error", (error: Error) => options.log(`mail: inbound SMTP: ${oneLine(error.message, loggedCharsMax)}`));
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
