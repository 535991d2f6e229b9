// Follows one SMTP session's commands and replies (RFC 5321: every command gets exactly one
// reply, in order, also when pipelined) and keeps the replies that decide each recipient's
// outcome: MAIL FROM's, each RCPT TO's, DATA's and the one after the message data. nodemailer
// reports a failed send as one error and loses which recipient got which reply when a server
// closes mid-envelope (421) or refuses DATA after some recipients were refused, so the
// outcomes are read from the conversation itself.
import { parseSmtpReply, type SmtpReply } from "../smtp-reply.ts";

type Step = { kind: "greeting" } | { kind: "mail" } | { kind: "rcpt"; recipient: string } | { kind: "data" } | { kind: "message" } | { kind: "other" };

export class SmtpConversation {
  greetingReply: SmtpReply | null = null;
  mailReply: SmtpReply | null = null;
  readonly rcptReplies = new Map<string, SmtpReply>();
  dataReply: SmtpReply | null = null;
  /** The reply to the end of the message data. */
  messageReply: SmtpReply | null = null;
  /** A 421 at any point: the server closed the session (RFC 5321 section 3.8). */
  closingReply: SmtpReply | null = null;
  /** Replies seen so far, of any kind. */
  repliesSeen = 0;
  private readonly awaiting: Step[] = [{ kind: "greeting" }];

  onClientLine(line: string): void {
    const rcpt = /^RCPT TO:<([^>]*)>/i.exec(line);
    if (rcpt) this.awaiting.push({ kind: "rcpt", recipient: rcpt[1]! });
    else if (/^MAIL FROM:/i.test(line)) this.awaiting.push({ kind: "mail" });
    else if (/^DATA$/i.test(line)) this.awaiting.push({ kind: "data" });
    else this.awaiting.push({ kind: "other" });
  }

  onServerReply(text: string): void {
    this.repliesSeen++;
    const reply = parseSmtpReply(text);
    if (reply.code === 421) this.closingReply ??= reply;
    const step = this.awaiting.shift();
    if (!step) return;
    if (step.kind === "greeting") this.greetingReply = reply;
    else if (step.kind === "mail") this.mailReply = reply;
    else if (step.kind === "rcpt") this.rcptReplies.set(step.recipient, reply);
    else if (step.kind === "data") {
      this.dataReply = reply;
      // after 354 (or a 2xx from servers that answer so, as nodemailer allows) the message
      // data goes out, and its end is answered like a command
      if (reply.code !== null && reply.code >= 200 && reply.code < 400) this.awaiting.unshift({ kind: "message" });
    } else if (step.kind === "message") this.messageReply = reply;
  }
}
