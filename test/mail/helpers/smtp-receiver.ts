// A real SMTP server (smtp-server) on 127.0.0.1 playing a recipient's MX or a relay: STARTTLS
// with a certificate made at test time, optional AUTH, answers chosen per RCPT address and at
// DATA, and every accepted message kept raw with its envelope.
import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerDataStream, type SMTPServerOptions, type SMTPServerSession } from "smtp-server";
import { makeSelfSignedCertificate } from "./self-signed-certificate.ts";

/** A reply the receiver gives instead of accepting. `text` starts with the enhanced code if it has one ("5.1.1 User unknown"). A 421 also closes the connection, as smtp-server does for every 421. */
export type ReceiverAnswer = { code: number; text: string };
export type ReceivedMessage = {
  mailFrom: string;
  recipients: string[];
  raw: Buffer;
  /** Whether the session was encrypted (STARTTLS or implicit TLS) when the message came. */
  secure: boolean;
  authenticatedUser: string | null;
};
export type SmtpReceiverOptions = {
  /** Host name in the greeting and the certificate. */
  hostName?: string;
  /** Offer STARTTLS (default true). */
  startTls?: boolean;
  /** TLS from the first byte (an smtps:// relay). */
  implicitTls?: boolean;
  /** Require AUTH with these credentials (only over TLS, as smtp-server does). */
  credentials?: { user: string; pass: string };
  /** SASL mechanisms offered, in order (smtp-server's default: PLAIN, LOGIN). */
  authMethods?: string[];
  /** Largest message accepted, advertised with SIZE. */
  sizeMaxBytes?: number;
};

// Made once per test process: a 2048-bit key takes a while, and any certificate will do.
let certificate: ReturnType<typeof makeSelfSignedCertificate> | undefined;

export class SmtpReceiver {
  readonly received: ReceivedMessage[] = [];
  /** Every RCPT TO address, accepted or not, in order. */
  readonly rcptAttempts: string[] = [];
  connections = 0;
  private readonly rcptAnswers = new Map<string, { answer: ReceiverAnswer; timesLeft: number }>();
  private dataAnswer: ReceiverAnswer | null = null;
  private readonly arrivalWaiters: { count: number; resolve: () => void }[] = [];

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  static async start(options: SmtpReceiverOptions = {}): Promise<SmtpReceiver> {
    const hostName = options.hostName ?? "mx.receiver.test";
    certificate ??= makeSelfSignedCertificate(hostName);
    let receiver: SmtpReceiver | undefined;
    const serverOptions: SMTPServerOptions = {
      name: hostName,
      key: certificate.keyPem,
      cert: certificate.certificatePem,
      secure: options.implicitTls ?? false,
      size: options.sizeMaxBytes,
      authMethods: options.authMethods,
      disabledCommands: [...(options.startTls === false ? ["STARTTLS"] : []), ...(options.credentials ? [] : ["AUTH"])],
      authOptional: !options.credentials,
      disableReverseLookup: true,
      onConnect: (_session, callback) => {
        if (receiver) receiver.connections++;
        callback();
      },
      onAuth: (auth, _session, callback) => {
        const { user, pass } = options.credentials ?? {};
        if (auth.username === user && auth.password === pass) callback(null, { user: auth.username });
        else callback(Object.assign(new Error("5.7.8 Authentication credentials invalid"), { responseCode: 535 }));
      },
      onRcptTo: (address, _session, callback) => receiver?.onRcptTo(address.address, callback),
      onData: (stream, session, callback) => receiver?.onData(stream, session, callback),
    };
    const server = new SMTPServer(serverOptions);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    receiver = new SmtpReceiver(server, (server.server.address() as AddressInfo).port);
    return receiver;
  }

  /** How RCPT TO for `address` is answered the next `times` times (250 when never set). */
  answerRcpt(address: string, answer: ReceiverAnswer, times = Number.POSITIVE_INFINITY): void {
    this.rcptAnswers.set(address.toLowerCase(), { answer, timesLeft: times });
  }

  /** How the end of DATA is answered from now on (250 when never set). */
  answerData(answer: ReceiverAnswer | null): void {
    this.dataAnswer = answer;
  }

  /** Resolves once `count` messages have been accepted in all (since the last reset). */
  arrived(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.arrivalWaiters.push({ count, resolve }));
  }

  /** Forgets answers, messages and counts, for the next test. */
  reset(): void {
    this.rcptAnswers.clear();
    this.dataAnswer = null;
    this.received.length = 0;
    this.rcptAttempts.length = 0;
    this.connections = 0;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onRcptTo(address: string, callback: (err?: Error | null) => void): void {
    this.rcptAttempts.push(address);
    const planned = this.rcptAnswers.get(address.toLowerCase());
    if (planned && --planned.timesLeft <= 0) this.rcptAnswers.delete(address.toLowerCase());
    callback(planned ? Object.assign(new Error(planned.answer.text), { responseCode: planned.answer.code }) : null);
  }

  private onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null) => void): void {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      const answer = this.dataAnswer;
      if (answer) {
        callback(Object.assign(new Error(answer.text), { responseCode: answer.code }));
        return;
      }
      this.received.push({
        mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
        recipients: session.envelope.rcptTo.map((recipient) => recipient.address),
        raw: Buffer.concat(chunks),
        secure: session.secure,
        authenticatedUser: typeof session.user === "string" ? session.user : null,
      });
      for (const waiter of this.arrivalWaiters.filter((item) => this.received.length >= item.count)) {
        this.arrivalWaiters.splice(this.arrivalWaiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      callback(null);
    });
  }
}
