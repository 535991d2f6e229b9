// The SMTP conversation of one delivery attempt, as a person reads it in a delivery log: what
// we sent, what the server answered, and what happened on the connection, each with its time.
// Fed by nodemailer's transaction log (commands and replies, never the message data, whose
// size alone is noted). Credentials are redacted, every line is bounded, and so is the count.
import { format } from "node:util";

export type TranscriptEntry = {
  at: string;
  /** client: a command we sent; server: a reply; event: the connection, TLS, errors. */
  from: "client" | "server" | "event";
  text: string;
};
export type Transcript = { entries: TranscriptEntry[]; omittedEntries: number };

/** Entries kept from the start of a conversation; the end is kept apart so the last replies are never lost. */
export const transcriptHeadEntriesMax = 150;
export const transcriptTailEntriesMax = 50;
/** A longer line (a hostile server's) is cut to this many characters. */
export const transcriptEntryCharsMax = 2_000;

const redacted = "[credentials redacted]";
// control characters other than line feed and tab would let a server's reply rewrite a log viewer's terminal
const unprintable = /[\x00-\x08\x0b-\x1f\x7f]/g;

/** `text` safe to show: control characters escaped, cut at transcriptEntryCharsMax. */
export function readable(text: string): string {
  const escaped = text.replace(/\r?\n/g, "\n").replace(unprintable, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`);
  return escaped.length > transcriptEntryCharsMax ? `${escaped.slice(0, transcriptEntryCharsMax)}… [${escaped.length - transcriptEntryCharsMax} more characters]` : escaped;
}

/** A bunyan-style logger, the shape nodemailer's `logger` option takes. */
type LogMethod = (entry: { tnx?: string } | undefined, message?: string, ...args: unknown[]) => void;
export type NodemailerLogger = Record<"trace" | "debug" | "info" | "warn" | "error" | "fatal", LogMethod>;

export class TranscriptRecorder {
  private readonly head: TranscriptEntry[] = [];
  private readonly tail: TranscriptEntry[] = [];
  private omitted = 0;
  private inAuthExchange = false;
  private readonly secrets: string[];

  /**
   * @param secrets strings that must never appear (a relay's user name and password); their
   *   base64 forms are hidden as well, whatever the authentication mechanism sends.
   * @param onClientLine, onServerReply see every command and reply as sent, before redaction
   *   and bounds, to follow the conversation.
   */
  constructor(
    secrets: string[],
    private readonly listener: { onClientLine(line: string): void; onServerReply(reply: string): void },
    private readonly now: () => Date = () => new Date(),
  ) {
    this.secrets = secrets
      .filter((secret) => secret.length)
      .flatMap((secret) => [secret, Buffer.from(secret).toString("base64"), encodeURIComponent(secret)]);
  }

  readonly logger: NodemailerLogger = {
    trace: () => {},
    debug: (entry, message, ...args) => this.fromLog(entry?.tnx, format(message ?? "", ...args)),
    info: (_entry, message, ...args) => this.event(format(message ?? "", ...args)),
    warn: (_entry, message, ...args) => this.event(format(message ?? "", ...args)),
    error: (_entry, message, ...args) => this.event(format(message ?? "", ...args)),
    fatal: (_entry, message, ...args) => this.event(format(message ?? "", ...args)),
  };

  event(text: string): void {
    this.add("event", text);
  }

  finish(): Transcript {
    const gap = this.omitted ? [{ at: this.tail[0]?.at ?? this.now().toISOString(), from: "event" as const, text: `[${this.omitted} entries omitted]` }] : [];
    return { entries: [...this.head, ...gap, ...this.tail], omittedEntries: this.omitted };
  }

  // Only the transaction log's commands and replies are kept at debug level; the rest of
  // nodemailer's debug output (DNS, handshake bookkeeping) says nothing a reader needs.
  private fromLog(kind: string | undefined, text: string): void {
    if (kind === "client") {
      this.listener.onClientLine(text);
      this.add("client", this.redactCommand(text));
    } else if (kind === "server") {
      this.listener.onServerReply(text);
      // the reply that is not a 334 challenge ends an AUTH exchange
      if (this.inAuthExchange && !text.startsWith("334")) this.inAuthExchange = false;
      this.add("server", text);
    }
  }

  private redactCommand(line: string): string {
    const auth = /^AUTH\s+(\S+)/i.exec(line);
    if (auth) {
      this.inAuthExchange = true;
      return line.length > auth[0].length ? `AUTH ${auth[1]} ${redacted}` : line;
    }
    return this.inAuthExchange ? redacted : line;
  }

  private add(from: TranscriptEntry["from"], text: string): void {
    let safe = text;
    for (const secret of this.secrets) safe = safe.split(secret).join(redacted);
    const entry = { at: this.now().toISOString(), from, text: readable(safe) };
    if (this.head.length < transcriptHeadEntriesMax) {
      this.head.push(entry);
      return;
    }
    this.tail.push(entry);
    if (this.tail.length > transcriptTailEntriesMax) {
      this.tail.shift();
      this.omitted++;
    }
  }
}
