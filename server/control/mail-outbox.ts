// Mail that carries a token (password reset, email verification, invitations) goes through
// this interface. Until the mail service exists, LogMailOutbox appends each message as one
// JSON line to `mail-outbox.jsonl` in DATA_DIR and prints a line to the log, so an operator
// can deliver it by hand and tests can read it.
import { appendFileSync } from "node:fs";

export interface OutgoingMail {
  to: string;
  kind: "password_reset" | "verify_email" | "invitation";
  subject: string;
  /** The link the recipient follows; the single-use token is its `token` query parameter. */
  link: string;
  token: string;
}

export interface MailOutbox {
  send(mail: OutgoingMail): void;
}

export class LogMailOutbox implements MailOutbox {
  constructor(private readonly path: string) {}

  send(mail: OutgoingMail): void {
    appendFileSync(this.path, JSON.stringify({ ...mail, queued_at: new Date().toISOString() }) + "\n");
    console.log(`mail outbox: ${mail.kind} for ${mail.to} written to ${this.path}`);
  }
}
