// The webhook store on PostgreSQL (MAIL_DATABASE_URL), as processes sharing one store run it:
// every statement of endpoints, fan-out, leases, attempts and replay answers as on SQLite, and
// the per-tenant limit holds.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { EventStore } from "../../../server/mail/store/events.ts";
import { webhookRetryDelaysMs } from "../../../server/mail/webhooks/schedule.ts";
import { webhooksPerTenantMax } from "../../../server/mail/webhooks/webhooks-service.ts";
import { startTestMailOnPostgres, type TestMail } from "../harness.ts";
import { WebhookReceiver } from "../helpers/webhook-receiver.ts";

let mail: TestMail;
let receiver: WebhookReceiver;
beforeAll(async () => {
  mail = await startTestMailOnPostgres();
  receiver = new WebhookReceiver();
}, 120_000);
afterAll(async () => {
  receiver?.close();
  await mail?.close();
});

test("endpoints, fan-out, retries, attempts and replay on PostgreSQL", async () => {
  const tenant = await mail.tenant();
  const created = await mail.call("POST", "/v1/webhooks", { key: tenant.key, body: { url: receiver.url, events: ["email.sent", "email.delivered"] } });
  expect(created.status).toBe(201);
  receiver.secret = created.body.secret;
  const patched = await mail.call("PATCH", `/v1/webhooks/${created.body.id}`, { key: tenant.key, body: { events: ["email.delivered"] } });
  expect(patched.body).toMatchObject({ events: ["email.delivered"], enabled: true, url: receiver.url });

  receiver.script.push("fail");
  const [event] = await new EventStore(mail.mail.ctx.database.sql).emit([{ tenantId: tenant.id, type: "email.delivered", emailId: "em_1", data: { email_id: "em_1" } }], mail.clock.now());
  await mail.mail.deliverWebhooks();
  mail.clock.advance(webhookRetryDelaysMs[0]!);
  await mail.mail.deliverWebhooks();
  expect(receiver.received.map((entry) => [entry.id, entry.answer])).toEqual([
    [event!.id, "fail"],
    [event!.id, "ok"],
  ]);
  const listed = await mail.call("GET", `/v1/webhooks/${created.body.id}/deliveries?state=delivered`, { key: tenant.key });
  expect(listed.body.data).toHaveLength(1);
  expect(listed.body.data[0]).toMatchObject({ state: "delivered", last_status: 200, attempts: [expect.objectContaining({ status: 500 }), expect.objectContaining({ status: 200 })] });
  const replayed = await mail.call("POST", `/v1/webhooks/${created.body.id}/deliveries/${listed.body.data[0].id}/replay`, { key: tenant.key });
  expect(replayed.body.state).toBe("pending");
  await mail.mail.deliverWebhooks();
  expect(receiver.received).toHaveLength(3);

  for (let index = 1; index < webhooksPerTenantMax; index += 1) {
    expect((await mail.call("POST", "/v1/webhooks", { key: tenant.key, body: { url: `https://a.example/${index}`, events: ["email.sent"] } })).status).toBe(201);
  }
  expect((await mail.call("POST", "/v1/webhooks", { key: tenant.key, body: { url: "https://a.example/over", events: ["email.sent"] } })).status).toBe(409);
  expect((await mail.call("GET", "/v1/webhooks?limit=200", { key: tenant.key })).body.data).toHaveLength(webhooksPerTenantMax);
}, 60_000);
