// Which endpoints get which events: only the tenant's own, enabled, subscribed to the type and
// existing when the event happened; a deleted endpoint gets nothing; a repeated fan-out makes no
// delivery twice. Domain transitions arrive as domain.verified / domain.failed, and the
// service's own timer delivers without being asked.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { webhookPassIntervalMs } from "../../../server/mail/mail.ts";
import { EventStore, type NewMailEvent } from "../../../server/mail/store/events.ts";
import { WebhookDeliveryStore } from "../../../server/mail/store/webhook-deliveries.ts";
import { WebhookStore } from "../../../server/mail/store/webhooks.ts";
import { fanOut } from "../../../server/mail/webhooks/fan-out.ts";
import { waitFor } from "../../gateway/harness.ts";
import { startTestMail, type TestMail } from "../harness.ts";
import { WebhookReceiver } from "../helpers/webhook-receiver.ts";

let mail: TestMail;
const receivers: WebhookReceiver[] = [];
beforeEach(async () => {
  mail = await startTestMail({ MAIL_DOMAIN_CHECK_INTERVAL_MS: "3600000" }, { webhookPassIntervalMs: 3_600_000 });
});
afterEach(async () => {
  for (const receiver of receivers.splice(0)) receiver.close();
  await mail.close();
});

async function receiverFor(key: string, events: string[]): Promise<{ id: string; receiver: WebhookReceiver }> {
  const receiver = new WebhookReceiver();
  receivers.push(receiver);
  const created = await mail.call("POST", "/v1/webhooks", { key, body: { url: receiver.url, events } });
  expect(created.status).toBe(201);
  receiver.secret = created.body.secret;
  return { id: created.body.id, receiver };
}

const emit = (events: NewMailEvent[]) => new EventStore(mail.mail.ctx.database.sql).emit(events, mail.clock.now());
const hop = (tenantId: string, type: NewMailEvent["type"], emailId: string): NewMailEvent => ({ tenantId, type, emailId, data: { email_id: emailId } });

test("each event goes to the tenant's enabled endpoints subscribed to its type, once; deleted, disabled and later endpoints get nothing", async () => {
  const acme = await mail.tenant("Acme");
  const other = await mail.tenant("Other");
  const both = await receiverFor(acme.key, ["email.sent", "email.bounced"]);
  const sentOnly = await receiverFor(acme.key, ["email.sent"]);
  const disabled = await receiverFor(acme.key, ["email.sent", "email.bounced", "email.delivered"]);
  const deleted = await receiverFor(acme.key, ["email.sent", "email.bounced", "email.delivered"]);
  const foreign = await receiverFor(other.key, ["email.sent", "email.bounced", "email.delivered"]);
  expect((await mail.call("PATCH", `/v1/webhooks/${disabled.id}`, { key: acme.key, body: { enabled: false } })).body.enabled).toBe(false);
  expect((await mail.call("DELETE", `/v1/webhooks/${deleted.id}`, { key: acme.key })).body).toEqual({ id: deleted.id, deleted: true });

  await emit([hop(acme.id, "email.sent", "em_1"), hop(acme.id, "email.bounced", "em_1"), hop(acme.id, "email.delivered", "em_2")]);
  mail.clock.advance(1);
  const later = await receiverFor(acme.key, ["email.sent", "email.bounced", "email.delivered"]);
  expect(await mail.mail.deliverWebhooks()).toBe(3);

  expect(both.receiver.types()).toEqual(expect.arrayContaining(["email.sent", "email.bounced"]));
  expect(both.receiver.received).toHaveLength(2);
  expect(sentOnly.receiver.types()).toEqual(["email.sent"]);
  for (const silent of [disabled, deleted, foreign, later]) expect(silent.receiver.received).toEqual([]);

  // A repeated fan-out (a process killed before it marked the events) makes no delivery twice.
  const sql = mail.mail.ctx.database.sql;
  await sql`UPDATE mail_events SET fanned_out = 0`;
  expect(await fanOut({ events: new EventStore(sql), webhooks: new WebhookStore(sql), deliveries: new WebhookDeliveryStore(sql) }, mail.clock.now())).toBe(3);
  expect(await mail.mail.deliverWebhooks()).toBe(0);
  const [{ n }] = await sql`SELECT COUNT(*) AS n FROM mail_webhook_deliveries`;
  expect(Number(n)).toBe(3);

  // Enabled again, the endpoint gets what happens from then on (not what happened while it was off).
  await mail.call("PATCH", `/v1/webhooks/${disabled.id}`, { key: acme.key, body: { enabled: true } });
  await emit([hop(acme.id, "email.delivered", "em_3")]);
  await mail.mail.deliverWebhooks();
  expect(disabled.receiver.received.map((entry) => entry.body.data.email_id)).toEqual(["em_3"]);
  expect(later.receiver.received.map((entry) => entry.body.data.email_id)).toEqual(["em_3"]);
  expect(deleted.receiver.received).toEqual([]);

  // Changing the subscription changes what comes next.
  await mail.call("PATCH", `/v1/webhooks/${sentOnly.id}`, { key: acme.key, body: { events: ["email.delivered"] } });
  await emit([hop(acme.id, "email.sent", "em_4"), hop(acme.id, "email.delivered", "em_4")]);
  await mail.mail.deliverWebhooks();
  expect(sentOnly.receiver.types()).toEqual(["email.sent", "email.delivered"]);
  for (const receiver of receivers) expect(receiver.badSignatures).toBe(0);
});

test("a domain that verifies sends domain.verified (from POST verify) and one that loses a record domain.failed (from the scheduled check)", async () => {
  const tenant = await mail.tenant();
  const hook = await receiverFor(tenant.key, ["domain.verified", "domain.failed"]);
  const added = await mail.call("POST", "/v1/domains", { key: tenant.key, body: { name: "send.example.net" } });
  const publish = (without: string | null) => {
    const byName = new Map<string, { TXT: string[]; MX: { exchange: string; priority: number }[] }>();
    for (const record of added.body.records as { record: string; name: string; type: string; value: string; priority: number }[]) {
      const entry = byName.get(record.name) ?? { TXT: [], MX: [] };
      if (record.record !== without) {
        if (record.type === "TXT") entry.TXT.push(record.value);
        else entry.MX.push({ exchange: record.value, priority: record.priority });
      }
      byName.set(record.name, entry);
    }
    for (const [name, records] of byName) mail.dns.set(name, records);
  };
  publish(null);
  const verified = await mail.call("POST", `/v1/domains/${added.body.id}/verify`, { key: tenant.key });
  expect(verified.body.status).toBe("verified");
  // Checking again changes nothing: no second event.
  await mail.call("POST", `/v1/domains/${added.body.id}/verify`, { key: tenant.key });
  await mail.mail.deliverWebhooks();
  expect(hook.receiver.received.map((entry) => entry.body)).toEqual([
    { type: "domain.verified", created_at: expect.any(String), data: { id: added.body.id, name: "send.example.net", status: "verified", records: verified.body.records } },
  ]);

  publish("DKIM");
  mail.clock.advance(3_600_001);
  await mail.mail.checkDomains();
  await mail.mail.deliverWebhooks();
  const failed = await mail.call("GET", `/v1/domains/${added.body.id}`, { key: tenant.key });
  expect(hook.receiver.received.map((entry) => entry.body.type)).toEqual(["domain.verified", "domain.failed"]);
  expect(hook.receiver.received[1]!.body.data).toEqual({ id: added.body.id, name: "send.example.net", status: "failed", records: failed.body.records });
});

test("the service's own timer fans out and delivers without being asked", async () => {
  const own = await startTestMail({}, { webhookPassIntervalMs });
  try {
    const tenant = await own.tenant();
    const receiver = new WebhookReceiver();
    receivers.push(receiver);
    const created = await own.call("POST", "/v1/webhooks", { key: tenant.key, body: { url: receiver.url, events: ["email.received"] } });
    receiver.secret = created.body.secret;
    await new EventStore(own.mail.ctx.database.sql).emit([{ tenantId: tenant.id, type: "email.received", data: { from: "bob@example.org" } }], own.clock.now());
    await waitFor(() => receiver.received.length === 1, 10_000, "the timer's delivery");
    expect(receiver.received[0]!.body).toMatchObject({ type: "email.received", data: { from: "bob@example.org" } });
  } finally {
    await own.close();
  }
});
