// Sending on PostgreSQL (MAIL_DATABASE_URL), as processes sharing one store run it: accept with
// Idempotency-Key, deliver, bounce and suppress, search, a DSN over SMTP, webhook deliveries,
// and the retention sweep removing an email with its events and their webhook deliveries
// (PostgreSQL enforces the references SQLite does not).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { dayMs } from "../../../server/clock.ts";
import { startTestPostgres, type TestPostgres } from "../../helpers/postgres.ts";
import { WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { sendInbound } from "../inbound/fixture.ts";
import { startSendingFixture, verifiedDomain, type SendingFixture } from "./fixture.ts";

let postgres: TestPostgres;
let fixture: SendingFixture;
const hooks = new WebhookReceiver();
beforeAll(async () => {
  postgres = await startTestPostgres();
  fixture = await startSendingFixture({ MAIL_DATABASE_URL: postgres.url });
}, 120_000);
afterAll(async () => {
  hooks.close();
  await fixture?.close();
  await postgres?.close();
});

test("send, deliver, bounce, suppress, search, a DSN, webhooks and the retention sweep on PostgreSQL", async () => {
  const { mail, receiver } = fixture;
  const { key } = await mail.tenant();
  await verifiedDomain(mail, key, "send.acme.test");
  hooks.secret = (await mail.call("POST", "/v1/webhooks", { key, body: { url: hooks.url, events: ["email.sent", "email.delivered", "email.bounced"] } })).body.secret;
  receiver.answerRcpt("bob@example.net", { code: 550, text: "5.1.1 No such user" });
  const body = { from: "Acme <hello@send.acme.test>", to: ["ana@example.net", "bob@example.net"], subject: "Über ünïcode", html: "<p>Grüße</p>", tags: [{ name: "kind", value: "receipt" }] };
  const sent = await mail.call("POST", "/v1/emails", { key, headers: { "idempotency-key": "pg-1" }, body });
  expect(sent.status).toBe(200);
  const replay = await mail.call("POST", "/v1/emails", { key, headers: { "idempotency-key": "pg-1" }, body });
  expect(replay.body).toEqual(sent.body);
  await mail.mail.deliverQueued();
  expect(receiver.received.map((message) => message.recipients)).toEqual([["ana@example.net"]]);

  const detail = (await mail.call("GET", `/v1/emails/${sent.body.id}`, { key })).body;
  expect([detail.status, detail.subject, detail.recipients.map((recipient: any) => [recipient.address, recipient.status, recipient.bounce_class])]).toEqual([
    "partially_delivered",
    "Über ünïcode",
    [["ana@example.net", "delivered", null], ["bob@example.net", "bounced", "unknown_mailbox"]],
  ]);
  expect((await mail.call("GET", "/v1/suppressions", { key })).body.data.map((entry: any) => entry.address)).toEqual(["bob@example.net"]);
  for (const query of ["tag=kind:receipt", "recipient=bob@example.net", "status=partially_delivered", `message_id=${encodeURIComponent(detail.message_id)}`]) {
    expect((await mail.call("GET", `/v1/emails?${query}`, { key })).body.data.map((email: any) => email.id)).toEqual([sent.body.id]);
  }
  expect((await mail.call("GET", "/v1/emails?tag=kind:other", { key })).body.data).toEqual([]);

  const returnPath = `bounce+${sent.body.id}@bounces.send.acme.test`;
  const dsn = [
    `From: MAILER-DAEMON@relay.example.net`, `To: ${returnPath}`, `Subject: failure`, `MIME-Version: 1.0`,
    `Content-Type: multipart/report; report-type=delivery-status; boundary="b1"`, ``,
    `--b1`, `Content-Type: message/delivery-status`, ``, `Reporting-MTA: dns; relay.example.net`, ``,
    `Final-Recipient: rfc822; ana@example.net`, `Action: failed`, `Status: 5.2.1`, `Diagnostic-Code: smtp; 550 5.2.1 mailbox disabled`, ``, `--b1--`, ``,
  ].join("\r\n");
  await sendInbound(mail, { envelope: { from: "", to: [returnPath] }, raw: dsn });
  const bounced = (await mail.call("GET", `/v1/emails/${sent.body.id}`, { key })).body;
  expect([bounced.status, bounced.recipients[0].status, bounced.recipients[0].bounce_class]).toEqual(["bounced", "bounced", "mailbox_disabled"]);

  await mail.mail.deliverWebhooks();
  expect(hooks.received.map((hook) => [hook.body.type, hook.body.data.recipient ?? null])).toEqual([
    ["email.sent", null],
    ["email.delivered", "ana@example.net"],
    ["email.bounced", "bob@example.net"],
    ["email.bounced", "ana@example.net"],
  ]);
  expect(hooks.badSignatures).toBe(0);

  mail.clock.advance(2 * dayMs);
  expect(await mail.mail.sweepRetention()).toBeGreaterThan(0);
  expect((await mail.call("GET", `/v1/emails/${sent.body.id}`, { key })).status).toBe(404);
  const left = await mail.mail.ctx.database.sql`SELECT (SELECT COUNT(*) FROM mail_events WHERE email_id = ${sent.body.id}) AS events, (SELECT COUNT(*) FROM mail_webhook_deliveries) AS deliveries, (SELECT COUNT(*) FROM mail_recipients WHERE email_id = ${sent.body.id}) AS recipients`;
  expect(left.map((row: any) => [Number(row.events), Number(row.deliveries), Number(row.recipients)])).toEqual([[0, 0, 0]]);
});
