// Every hop of a real send reaches the tenant's webhook receiver, each request verified with
// the svix and standardwebhooks libraries: scheduled, sent, deferred, delivered, bounced; a
// receiver that fails first is retried and then gets the event. And the queue survives a
// killed worker: a recipient leased by a process that died is delivered once the lease runs out.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { hourMs, minuteMs } from "../../../server/clock.ts";
import { deliveryLeaseMs } from "../../../server/mail/sending/delivery-queue.ts";
import { QueueStore } from "../../../server/mail/store/queue.ts";
import { deferredRetryDelaysMs } from "../../../server/mail/sending/retry-schedule.ts";
import { webhookRetryDelaysMs } from "../../../server/mail/webhooks/schedule.ts";
import { WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { startClean, startSendingTenant, type SendingFixture } from "./fixture.ts";

let fixture: SendingFixture;
let key: string;
const hooks = new WebhookReceiver();
beforeAll(async () => {
  ({ fixture, key } = await startSendingTenant());
  const endpoint = await fixture.mail.call("POST", "/v1/webhooks", {
    key,
    body: { url: hooks.url, events: ["email.scheduled", "email.sent", "email.delivered", "email.deferred", "email.bounced"] },
  });
  hooks.secret = endpoint.body.secret;
});
afterAll(async () => {
  hooks.close();
  await fixture.close();
});
beforeEach(async () => {
  await startClean(fixture);
  await fixture.mail.mail.deliverWebhooks();
  hooks.received.length = 0;
});

const send = (body: Record<string, unknown>) => fixture.mail.call("POST", "/v1/emails", { key, body: { from: "hello@send.acme.test", subject: "Hello", text: "Hi", ...body } });

test("each hop of real sends is posted, signed, to the subscribed receiver; a failing receiver gets it on a retry", async () => {
  const { mail, receiver } = fixture;
  receiver.answerRcpt("later@example.net", { code: 451, text: "4.7.1 Greylisted, try again" }, 1);
  receiver.answerRcpt("nobody@example.net", { code: 550, text: "5.1.1 No such user" });
  const scheduled = await send({ to: ["ana@example.net"], scheduled_at: "in 1 hour" });
  const greylisted = await send({ to: ["later@example.net"] });
  const unknown = await send({ to: ["nobody@example.net"] });
  await mail.mail.deliverQueued();
  hooks.script.push("fail");
  await mail.mail.deliverWebhooks();
  expect(hooks.received.map((hook) => hook.answer)[0]).toBe("fail");
  mail.clock.advance(webhookRetryDelaysMs[0]!);
  await mail.mail.deliverWebhooks();
  mail.clock.advance(Math.max(hourMs, deferredRetryDelaysMs[0]!));
  await mail.mail.deliverQueued();
  await mail.mail.deliverWebhooks();

  const delivered = hooks.received.filter((hook) => hook.answer === "ok");
  const byEmail = (id: string) => delivered.filter((hook) => hook.body.data.email_id === id).map((hook) => [hook.body.type, hook.body.data.recipient ?? null]);
  expect(byEmail(scheduled.body.id)).toEqual([["email.scheduled", null], ["email.sent", null], ["email.delivered", "ana@example.net"]]);
  expect(byEmail(greylisted.body.id)).toEqual([["email.sent", null], ["email.deferred", "later@example.net"], ["email.delivered", "later@example.net"]]);
  expect(byEmail(unknown.body.id)).toEqual([["email.sent", null], ["email.bounced", "nobody@example.net"]]);
  expect(delivered.find((hook) => hook.body.type === "email.bounced")!.body.data).toMatchObject({ bounce_class: "unknown_mailbox", action: "suppress", smtp: { code: 550, enhanced_code: "5.1.1" } });
  expect(hooks.badSignatures).toBe(0);
  // Every event arrived once, however many attempts it took; the failed one's retry kept its id.
  const ids = delivered.map((hook) => hook.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids).toContain(hooks.received[0]!.id);
  expect(receiver.received.length).toBe(2);
});

test("a recipient leased by a worker that died is delivered once its lease runs out, not before", async () => {
  const { mail, receiver } = fixture;
  const sent = await send({ to: ["orphan@example.net"], scheduled_at: "in 1 minute" });
  mail.clock.advance(minuteMs);
  // Another process claims the recipient and is killed before it settles anything.
  const queue = new QueueStore(mail.mail.ctx.database.sql);
  expect(await queue.fire(sent.body.id, mail.clock.now())).toBe(1);
  const claimed = await queue.claim(sent.body.id, "example.net", "killed-worker", mail.clock.now(), deliveryLeaseMs);
  expect(claimed.map((recipient) => recipient.address)).toEqual(["orphan@example.net"]);
  expect(await mail.mail.deliverQueued()).toBe(0);
  mail.clock.advance(deliveryLeaseMs - 1_000);
  expect(await mail.mail.deliverQueued()).toBe(0);
  mail.clock.advance(1_001);
  expect(await mail.mail.deliverQueued()).toBe(1);
  expect(receiver.received.map((message) => message.recipients)).toEqual([["orphan@example.net"]]);
  expect((await mail.call("GET", `/v1/emails/${sent.body.id}`, { key })).body.status).toBe("delivered");
});
