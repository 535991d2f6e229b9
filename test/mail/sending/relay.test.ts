// With MAIL_RELAY_URL every email goes through the relay (a real SMTP server on loopback that
// requires STARTTLS and AUTH), whatever its recipients' domains, DKIM-signed as always; the
// attempt's conversation keeps the AUTH exchange redacted. A relay refusing the credentials
// defers the recipients (the operator fixes the setting; nothing is lost). A bad relay URL
// stops the start with a clear error.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { authenticate } from "mailauth";
import { MailSettingsError, parseMailSettings } from "../../../server/mail/settings.ts";
import { startTestMail, type TestMail } from "../harness.ts";
import { SmtpReceiver } from "../helpers/smtp-receiver.ts";
import { verifiedDomain } from "./fixture.ts";

let relay: SmtpReceiver;
let mail: TestMail;
let key: string;
beforeAll(async () => {
  relay = await SmtpReceiver.start({ hostName: "relay.provider.test", credentials: { user: "acme", pass: "s3cret pass" } });
  mail = await startTestMail({ MAIL_RELAY_URL: `smtp://acme:${encodeURIComponent("s3cret pass")}@127.0.0.1:${relay.port}?verify_certificate=false` });
  key = (await mail.tenant()).key;
  await verifiedDomain(mail, key, "send.acme.test");
});
afterAll(async () => {
  await mail.close();
  await relay.close();
});

test("emails to any domain go through the relay, authenticated over TLS and DKIM-signed; the password never shows", async () => {
  const sent = await mail.call("POST", "/v1/emails", { key, body: { from: "hello@send.acme.test", to: ["ana@example.net", "bo@elsewhere.example"], subject: "Via relay", text: "Hi" } });
  await mail.mail.deliverQueued();
  expect(relay.received.map((message) => [message.recipients.join(), message.secure, message.authenticatedUser]).sort()).toEqual([["ana@example.net", true, "acme"], ["bo@elsewhere.example", true, "acme"]]);
  const verdict = await authenticate(relay.received[0]!.raw, { resolver: mail.dns.resolve, ip: "127.0.0.1", helo: "mx.mail-service.test", sender: relay.received[0]!.mailFrom, mta: "relay.provider.test" });
  expect(verdict.dkim.results.map((result: any) => result.status.result)).toEqual(["pass"]);
  const detail = (await mail.call("GET", `/v1/emails/${sent.body.id}`, { key })).body;
  expect(detail.status).toBe("delivered");
  const transcript = JSON.stringify(detail.attempts);
  expect(transcript).toContain("AUTH");
  expect(transcript).not.toContain("s3cret");
  expect(transcript).not.toContain(Buffer.from("\u0000acme\u0000s3cret pass").toString("base64"));
});

test("a relay refusing the credentials defers the recipients, to be retried", async () => {
  const refusing = await SmtpReceiver.start({ hostName: "relay.provider.test", credentials: { user: "acme", pass: "another" } });
  const other = await startTestMail({ MAIL_RELAY_URL: `smtp://acme:wrong@127.0.0.1:${refusing.port}?verify_certificate=false` });
  try {
    const otherKey = (await other.tenant()).key;
    await verifiedDomain(other, otherKey, "send.acme.test");
    const sent = await other.call("POST", "/v1/emails", { key: otherKey, body: { from: "hello@send.acme.test", to: ["ana@example.net"], subject: "Hi", text: "Hi" } });
    await other.mail.deliverQueued();
    const recipient = (await other.call("GET", `/v1/emails/${sent.body.id}`, { key: otherKey })).body.recipients[0];
    expect([recipient.status, recipient.action]).toEqual(["deferred", "retry"]);
    expect(refusing.received).toEqual([]);
  } finally {
    await other.close();
    await refusing.close();
  }
});

test("a relay URL that cannot work stops the start, naming the setting", () => {
  for (const [url, message] of [
    ["http://relay.example.com", "MAIL_RELAY_URL: the relay URL must start with smtp:// or smtps://, not http://"],
    ["smtp://relay.example.com?starttls=sometimes", "MAIL_RELAY_URL: starttls must be one of required, opportunistic, never"],
  ]) {
    expect(() => parseMailSettings({ MAIL_RELAY_URL: url }, null)).toThrow(new MailSettingsError(message!));
  }
});
