// What the control plane mails (password resets, email verification, invitations) and the
// interface every way of sending it implements. Services hand a message over and go on: no
// transport makes an HTTP answer wait for mail to leave, so the answer takes the same time
// whether or not a message was sent (a reset request must not tell whether an account exists).
export type OutgoingMailKind = "password_reset" | "verify_email" | "invitation";

export interface OutgoingMail {
  /** The email token's id: names this message (the mail API's Idempotency-Key); not a secret. */
  id: string;
  to: string;
  kind: OutgoingMailKind;
  subject: string;
  html: string;
  text: string;
  /** The link the recipient follows; the single-use token is its `token` query parameter. */
  link: string;
  token: string;
}

export interface MailTransport {
  /** Takes the message over; never throws for a failure to deliver, and never waits for the network. */
  send(mail: OutgoingMail): void;
  /** Resolves once every message handed over so far has been sent or written to the outbox. */
  settled(): Promise<void>;
  /** Stops retrying: what is still unsent is written to the outbox, then this resolves. */
  close(): Promise<void>;
}
