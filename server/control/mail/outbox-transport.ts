// The default transport, and the mail API transport's fallback: each message is appended as
// one JSON line to `mail-outbox.jsonl` in DATA_DIR and a line is logged, so an operator can
// deliver it by hand (and tests can read it). Writing is synchronous and local: nothing is lost
// between the request and the file.
import { appendFileSync } from "node:fs";
import type { MailTransport, OutgoingMail } from "./outgoing-mail.ts";

export class OutboxTransport implements MailTransport {
  constructor(
    readonly path: string,
    private readonly log: (line: string) => void = (line) => console.log(line),
  ) {}

  send(mail: OutgoingMail): void {
    this.write(mail, null);
  }

  /** `undelivered`: why the mail API did not take it (written with the line, so the operator sees it there too). */
  write(mail: OutgoingMail, undelivered: string | null): void {
    const { id, to, kind, subject, link, token, html, text } = mail;
    const line = { id, to, kind, subject, link, token, html, text, queued_at: new Date().toISOString(), ...(undelivered ? { undelivered } : {}) };
    appendFileSync(this.path, JSON.stringify(line) + "\n");
    this.log(`mail outbox: ${kind} for ${to} written to ${this.path}`);
  }

  settled(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
