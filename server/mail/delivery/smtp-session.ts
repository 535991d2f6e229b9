// One SMTP session with one server address through nodemailer's SMTPConnection: connect, TLS
// as the policy says, AUTH when given credentials, one transaction, QUIT. It reports how the
// session ended; which recipient got which reply is in the conversation it was handed.
import { isIP } from "node:net";
import { TLSSocket } from "node:tls";
import SMTPConnection from "nodemailer/lib/smtp-connection";
import type { StartTlsPolicy } from "./relay.ts";
import type { SmtpConversation } from "./smtp-conversation.ts";
import type { TranscriptRecorder } from "./transcript.ts";

export type SessionTimeouts = {
  /** TCP connect (and an implicit TLS handshake). */
  connectMs: number;
  /** From connecting to the greeting, and to the end of a STARTTLS handshake. */
  greetingMs: number;
  /** Silence allowed while waiting for any reply (RFC 5321 section 4.5.3.2 suggests 5 minutes for most commands). */
  commandMs: number;
  /** The whole session, however the server drips its replies. */
  sessionMs: number;
};

export const defaultSessionTimeouts: SessionTimeouts = {
  connectMs: 30_000,
  greetingMs: 60_000,
  commandMs: 5 * 60_000,
  sessionMs: 15 * 60_000,
};
/** How long QUIT's reply is waited for once the transaction is over. */
export const quitTimeoutMs = 5_000;
/** A longer reply (a server answering without end) ends the session. */
export const replyBytesMax = 64 * 1024;
// Bounded by replyBytesMax per reply anyway; this only stops the wait below.
const queuedRepliesDrainedMax = 1_000;

export type SessionTarget = {
  /** What to connect to: an address in direct mode, the relay's host name in relay mode. */
  host: string;
  port: number;
  /** The name for SNI and certificate checks: the MX host name, or the relay's. */
  serverName: string;
};
export type SessionSecurity = {
  implicitTls: boolean;
  startTls: StartTlsPolicy;
  /**
   * Direct delivery does not verify the MX's certificate, as MTAs do without DANE or MTA-STS:
   * MX certificates are often self-signed or name another host, and refusing them would only
   * push the mail to plaintext. Opportunistic TLS still defeats passive eavesdropping.
   */
  verifyCertificate: boolean;
  credentials: { user: string; pass: string } | null;
};
export type SessionFailureReason =
  | "connection_failed"
  | "connection_lost"
  | "timeout"
  | "tls_failed"
  | "auth_failed"
  | "protocol_error"
  | "invalid_envelope";
export type SessionResult = {
  /** The server sent a greeting: it answered, even if only to refuse. */
  answered: boolean;
  tlsProtocol: string | null;
  /** What ended the session before its transaction was answered, if anything did. */
  failure: { reason: SessionFailureReason; text: string } | null;
};

type NodemailerError = Error & { code?: string; originalCode?: string; command?: string };

// a certificate or handshake error surfaces as a socket error, with the TLS code kept aside
const tlsErrorCode = /CERT|SSL|TLS|SELF_SIGNED|HANDSHAKE/i;

function failureOf(error: NodemailerError, answered: boolean, upgrading: boolean): SessionResult["failure"] {
  const text = error.message;
  if (upgrading || tlsErrorCode.test(error.originalCode ?? "")) return { reason: "tls_failed", text };
  switch (error.code) {
    case "EENVELOPE":
    case "EMESSAGE":
      // refused by a reply, which the conversation holds; only our own refusal of an address is a failure
      return error.command === "API" ? { reason: "invalid_envelope", text } : null;
    case "ETIMEDOUT":
      return { reason: "timeout", text };
    case "ETLS":
      return { reason: "tls_failed", text };
    case "EAUTH":
      return { reason: "auth_failed", text };
    case "EPROTOCOL":
      return { reason: "protocol_error", text };
    default:
      return { reason: answered ? "connection_lost" : "connection_failed", text };
  }
}

/**
 * nodemailer handles the replies that came in one read one per setImmediate, and Bun's TLS
 * socket reports its close before they are all handled: the 421 a server sends as it closes
 * would reach the transcript after the session ended. Waits until a turn passes with no reply.
 */
async function drainQueuedReplies(conversation: SmtpConversation): Promise<void> {
  for (let turn = 0; turn < queuedRepliesDrainedMax; turn++) {
    const seen = conversation.repliesSeen;
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    if (conversation.repliesSeen === seen) return;
  }
}

export function runSmtpSession(input: {
  target: SessionTarget;
  security: SessionSecurity;
  timeouts: SessionTimeouts;
  heloName: string;
  envelope: { from: string; to: string[] };
  message: Buffer;
  recorder: TranscriptRecorder;
  conversation: SmtpConversation;
}): Promise<SessionResult> {
  const { target, security, timeouts, recorder, conversation } = input;
  // SNI carries host names only (RFC 6066 section 3)
  const servername = isIP(target.serverName) ? undefined : target.serverName;
  const connection = new SMTPConnection({
    host: target.host,
    port: target.port,
    servername,
    name: input.heloName,
    secure: security.implicitTls,
    requireTLS: !security.implicitTls && security.startTls === "required",
    ignoreTLS: security.startTls === "never",
    opportunisticTLS: security.startTls === "opportunistic",
    tls: { rejectUnauthorized: security.verifyCertificate, servername },
    connectionTimeout: timeouts.connectMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.commandMs,
    socketCloseTimeout: quitTimeoutMs,
    maxResponseSize: replyBytesMax,
    logger: recorder.logger,
    transactionLog: true,
    debug: false,
  });
  let tlsProtocol: string | null = null;
  const answered = () => conversation.greetingReply !== null;

  return new Promise<SessionResult>((resolve) => {
    let failure: SessionResult["failure"] = null;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(sessionTimer);
      clearTimeout(quitTimer);
      connection.close();
      void drainQueuedReplies(conversation).then(() => resolve({ answered: answered(), tlsProtocol, failure }));
    };
    const fail = (error: NodemailerError) => {
      failure ??= failureOf(error, answered(), connection.upgrading === true);
      settle();
    };
    const quit = () => {
      connection.quit();
      quitTimer = setTimeout(settle, quitTimeoutMs);
    };
    let quitTimer: ReturnType<typeof setTimeout> | undefined;
    const sessionTimer = setTimeout(() => {
      recorder.event(`session time limit of ${timeouts.sessionMs} ms reached`);
      failure ??= { reason: "timeout", text: `the session took longer than ${timeouts.sessionMs} ms` };
      settle();
    }, timeouts.sessionMs);

    connection.on("error", fail);
    connection.once("end", settle);
    connection.connect((connectError) => {
      if (connectError) return fail(connectError);
      const socket = connection._socket;
      tlsProtocol = socket instanceof TLSSocket ? socket.getProtocol() : null;
      recorder.event(tlsProtocol ? `TLS in use: ${tlsProtocol}` : "no TLS");
      const send = () =>
        connection.send(
          { from: input.envelope.from, to: input.envelope.to, size: input.message.length, use8BitMime: input.message.some((byte) => byte > 0x7f) },
          input.message,
          (sendError) => {
            if (sendError) failure ??= failureOf(sendError, true, false);
            if (connection.destroyed) settle();
            else quit();
          },
        );
      if (!security.credentials) return send();
      connection.login({ user: security.credentials.user, pass: security.credentials.pass }, (loginError) => (loginError ? fail(loginError) : send()));
    });
  });
}
