// The inbound server's settings: MAIL_SMTP_PORT (default 2525, `off`), MAIL_SMTP_HOST, and
// STARTTLS offered only with both MAIL_SMTP_TLS_KEY_FILE and MAIL_SMTP_TLS_CERT_FILE.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MailSettingsError, parseMailSettings } from "../../../server/mail/settings.ts";
import { startTestMail } from "../harness.ts";
import { makeSelfSignedCertificate } from "../helpers/self-signed-certificate.ts";
import { SmtpDialog } from "../helpers/smtp-dialog.ts";
import { addDomain, sendInbound } from "./fixture.ts";

const smtp = (env: Record<string, string>) => {
  const { smtpPort, smtpHost, smtpTls } = parseMailSettings(env, null);
  return { smtpPort, smtpHost, smtpTls };
};

test("MAIL_SMTP_PORT defaults to 2525 on 0.0.0.0; `off` turns the server off; bad values stop start-up", () => {
  expect(smtp({})).toEqual({ smtpPort: 2525, smtpHost: "0.0.0.0", smtpTls: null });
  expect(smtp({ MAIL_SMTP_PORT: "OFF", MAIL_SMTP_HOST: "127.0.0.1" })).toEqual({ smtpPort: null, smtpHost: "127.0.0.1", smtpTls: null });
  expect(smtp({ MAIL_SMTP_PORT: "0" }).smtpPort).toBe(0);
  expect(smtp({ MAIL_SMTP_PORT: "65535" }).smtpPort).toBe(65535);
  for (const bad of ["65536", "-1", "25a", "1.5"]) {
    expect(() => parseMailSettings({ MAIL_SMTP_PORT: bad }, null)).toThrow(new MailSettingsError(`MAIL_SMTP_PORT must be a port (0-65535) or "off", got "${bad}"`));
  }
  expect(smtp({ MAIL_SMTP_TLS_KEY_FILE: "/k.pem", MAIL_SMTP_TLS_CERT_FILE: "/c.pem" }).smtpTls).toEqual({ keyFile: "/k.pem", certFile: "/c.pem" });
  expect(() => parseMailSettings({ MAIL_SMTP_TLS_KEY_FILE: "/k.pem" }, null)).toThrow(new MailSettingsError("MAIL_SMTP_TLS_KEY_FILE and MAIL_SMTP_TLS_CERT_FILE are set together or not at all"));
});

test("with MAIL_SMTP_PORT=off there is no SMTP server", async () => {
  const mail = await startTestMail({ MAIL_SMTP_PORT: "off" });
  expect(mail.mail.smtpPort).toBeNull();
  await mail.close();
});

test("with a key and certificate, STARTTLS is offered and mail arrives over TLS", async () => {
  const dir = mkdtempSync(join(tmpdir(), "mail-tls-"));
  const certificate = makeSelfSignedCertificate("mx.mail-service.test");
  writeFileSync(join(dir, "key.pem"), certificate.keyPem);
  writeFileSync(join(dir, "cert.pem"), certificate.certificatePem);
  const mail = await startTestMail({ MAIL_SMTP_TLS_KEY_FILE: join(dir, "key.pem"), MAIL_SMTP_TLS_CERT_FILE: join(dir, "cert.pem") });
  try {
    const { dialog } = await SmtpDialog.open(mail.mail.smtpPort!);
    expect((await dialog.command("EHLO mta.sender.test")).split("\n").map((line) => line.slice(4))).toContain("STARTTLS");
    dialog.close();
    const tenant = await mail.tenant();
    await addDomain(mail, tenant.key, "tls-example.com", { receiving: true });
    const info = await sendInbound(mail, { envelope: { from: "a@sender.test", to: ["b@tls-example.com"] }, raw: "Subject: over TLS\r\n\r\nhi\r\n" }, { requireTLS: true });
    expect(info.rejected).toEqual([]);
  } finally {
    await mail.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
