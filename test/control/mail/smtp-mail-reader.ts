// Reads the control plane's emails from where the mail API delivered them: an SMTP receiver
// playing the recipients' MX. The kind is read back from the link's page, the token from its
// query, so a test gets the same shape as from the outbox.
import { simpleParser } from "mailparser";
import type { OutboxMail } from "../../helpers/outbox.ts";
import type { MailReader } from "../../helpers/mail-reader.ts";
import type { SmtpReceiver } from "../../mail/helpers/smtp-receiver.ts";

const kindOfPage: Record<string, OutboxMail["kind"]> = {
  "/verify-email": "verify_email",
  "/reset-password": "password_reset",
  "/invitations/accept": "invitation",
};

async function parse(raw: Buffer): Promise<OutboxMail> {
  const message = await simpleParser(raw);
  const text = message.text ?? "";
  const link = text.match(/https?:\/\/\S+\?token=\S+/)?.[0];
  if (!link) throw new Error(`no link in the email "${message.subject}"`);
  const url = new URL(link);
  const kind = kindOfPage[url.pathname];
  if (!kind) throw new Error(`the link ${link} opens no page the control plane mails`);
  const to = Array.isArray(message.to) ? message.to[0] : message.to;
  return { to: to?.value[0]?.address ?? "", kind, subject: message.subject ?? "", link, token: url.searchParams.get("token")! };
}

export function smtpMailReader(receiver: SmtpReceiver): MailReader {
  const read = () => Promise.all(receiver.received.map((message) => parse(message.raw)));
  return {
    read,
    async awaitMail(to, kind) {
      for (let count = 1; ; count++) {
        await receiver.arrived(count);
        const found = (await read()).filter((item) => item.to === to && item.kind === kind).at(-1);
        if (found) return found;
      }
    },
  };
}
