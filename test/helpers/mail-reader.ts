// Where a test reads the control plane's emails from: the outbox file (the default transport,
// and the mail API transport's fallback) or, when the control plane sends through the mail
// API, wherever that API delivered them (an SMTP receiver playing the recipients' MX). Every
// reader answers the same shape, so a test reads a link or token the same way from either.
import type { MailTransport } from "../../server/control/mail/outgoing-mail.ts";
import { outboxMail, type OutboxMail } from "./outbox.ts";

export interface MailReader {
  /** Every email that has arrived so far, oldest first. */
  read(): Promise<OutboxMail[]>;
  /** The newest email to `to` of this kind, once it has arrived (the outbox reader throws when it is not there; others wait until the test's time-out). */
  awaitMail(to: string, kind: OutboxMail["kind"]): Promise<OutboxMail>;
}

/** The outbox file: an email is there once the transport has settled (no waiting on a clock). */
export function outboxReader(dataDir: string, transport: MailTransport): MailReader {
  return {
    read: async () => outboxMail(dataDir),
    async awaitMail(to, kind) {
      await transport.settled();
      const found = outboxMail(dataDir).filter((item) => item.to === to && item.kind === kind).at(-1);
      if (!found) throw new Error(`no ${kind} mail to ${to} in the outbox`);
      return found;
    },
  };
}
