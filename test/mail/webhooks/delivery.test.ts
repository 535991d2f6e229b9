// Webhook deliveries against the real mail service and a real receiver on loopback that
// verifies every request with the svix and standardwebhooks libraries: a receiver answering
// 500, then nothing, then 200 gets the event retried per the schedule (not a second early) and
// then delivered, every attempt listed; the whole schedule ends in `failed`; replay; leases of
// a killed process come back; rotation signs with the new secret at once.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { EventStore, webhookBody, type MailEvent, type NewMailEvent } from "../../../server/mail/store/events.ts";
import { WebhookDeliveryStore } from "../../../server/mail/store/webhook-deliveries.ts";
import { WebhookStore } from "../../../server/mail/store/webhooks.ts";
import { fanOut } from "../../../server/mail/webhooks/fan-out.ts";
import { webhookRetryDelaysMs } from "../../../server/mail/webhooks/schedule.ts";
import { webhookResponseExcerptBytesMax } from "../../../server/mail/webhooks/post-webhook.ts";
import { WebhookWorker, webhookLeaseMarginMs } from "../../../server/mail/webhooks/webhook-worker.ts";
import { startTestMail, type TestMail } from "../harness.ts";
import { WebhookReceiver } from "../helpers/webhook-receiver.ts";

// Long enough for a receiver on a busy machine to send a large answer; short, since some receivers hang on purpose.
const timeoutMs = 1_500;
let mail: TestMail;
let receiver: WebhookReceiver;
beforeEach(async () => {
  // Passes run only when the test asks (deliverWebhooks), so what each one does is known.
  mail = await startTestMail({}, { webhookTimeoutMs: timeoutMs, webhookPassIntervalMs: 3_600_000 });
  receiver = new WebhookReceiver();
});
afterEach(async () => {
  receiver.close();
  await mail.close();
});

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

async function endpoint(key: string, events: string[], url = receiver.url): Promise<{ id: string; secret: string }> {
  const created = await mail.call("POST", "/v1/webhooks", { key, body: { url, events } });
  expect(created.status).toBe(201);
  return created.body;
}

async function emit(event: NewMailEvent): Promise<MailEvent> {
  const [written] = await new EventStore(mail.mail.ctx.database.sql).emit([event], mail.clock.now());
  return written!;
}

const delivered = (tenantId: string) => ({ tenantId, type: "email.delivered" as const, emailId: "em_1", recipient: "ann@example.org", data: { email_id: "em_1", to: ["ann@example.org"], subject: "Hi" } });

async function deliveries(key: string, webhookId: string, query = "") {
  const listed = await mail.call("GET", `/v1/webhooks/${webhookId}/deliveries${query}`, { key });
  expect(listed.status).toBe(200);
  return listed.body;
}

test("a receiver that answers 500, then nothing, then 200 gets the event retried per the schedule, not a second early, and then delivered", async () => {
  const tenant = await mail.tenant();
  const hook = await endpoint(tenant.key, ["email.delivered"]);
  receiver.secret = hook.secret;
  receiver.script.push("fail", "hang");
  const event = await emit(delivered(tenant.id));

  await mail.mail.deliverWebhooks();
  expect(receiver.received.map((entry) => entry.answer)).toEqual(["fail"]);
  const afterFirst = await deliveries(tenant.key, hook.id);
  expect(afterFirst).toEqual({
    data: [
      {
        id: expect.stringMatching(/^whd_[0-9a-f]{32}$/),
        webhook_id: hook.id,
        event_id: event.id,
        event_type: "email.delivered",
        state: "pending",
        next_attempt_at: iso,
        last_status: 500,
        last_error: "HTTP 500",
        created_at: iso,
        updated_at: iso,
        delivered_at: null,
        attempts: [{ started_at: iso, duration_ms: expect.any(Number), status: 500, error: "HTTP 500", response_excerpt: "receiver down\r\n<b>try later</b>" }],
      },
    ],
    next_cursor: null,
  });
  const firstRetryAt = Date.parse(afterFirst.data[0].next_attempt_at);
  expect(firstRetryAt - Date.parse(afterFirst.data[0].updated_at)).toBe(webhookRetryDelaysMs[0]!);

  // A second before the retry is due nothing is posted; at its time it is.
  mail.clock.advance(webhookRetryDelaysMs[0]! - 1_000);
  await mail.mail.deliverWebhooks();
  expect(receiver.received).toHaveLength(1);
  mail.clock.advance(1_000);
  await mail.mail.deliverWebhooks();
  expect(receiver.received.map((entry) => entry.answer)).toEqual(["fail", "hang"]);

  mail.clock.advance(webhookRetryDelaysMs[1]! - 1_000);
  await mail.mail.deliverWebhooks();
  expect(receiver.received).toHaveLength(2);
  mail.clock.advance(1_000);
  await mail.mail.deliverWebhooks();
  expect(receiver.received.map((entry) => entry.answer)).toEqual(["fail", "hang", "ok"]);

  // Every attempt carried the same event: one webhook-id (the event's), the same body.
  expect(receiver.received.map((entry) => entry.id)).toEqual([event.id, event.id, event.id]);
  for (const entry of receiver.received) expect(entry.body).toEqual(webhookBody(event) as never);
  expect(receiver.received[0]!.body).toEqual({ type: "email.delivered", created_at: new Date(event.createdAt).toISOString(), data: { email_id: "em_1", to: ["ann@example.org"], subject: "Hi" } });
  expect(receiver.badSignatures).toBe(0);

  const done = await deliveries(tenant.key, hook.id);
  expect(done.data[0]).toMatchObject({ state: "delivered", next_attempt_at: null, last_status: 200, last_error: null, delivered_at: iso });
  expect(done.data[0].attempts).toEqual([
    { started_at: iso, duration_ms: expect.any(Number), status: 500, error: "HTTP 500", response_excerpt: "receiver down\r\n<b>try later</b>" },
    { started_at: iso, duration_ms: expect.any(Number), status: null, error: `no answer within ${timeoutMs} ms`, response_excerpt: null },
    { started_at: iso, duration_ms: expect.any(Number), status: 200, error: null, response_excerpt: "ok" },
  ]);
  expect(done.data[0].attempts[1].duration_ms).toBeGreaterThanOrEqual(timeoutMs - 5);

  // Replay: queued again at once, posted by the next pass, listed as a fourth attempt.
  const replayed = await mail.call("POST", `/v1/webhooks/${hook.id}/deliveries/${done.data[0].id}/replay`, { key: tenant.key });
  expect(replayed.status).toBe(200);
  expect(replayed.body).toMatchObject({ id: done.data[0].id, state: "pending", next_attempt_at: iso, delivered_at: null });
  expect(replayed.body.attempts).toHaveLength(3);
  const again = await mail.call("POST", `/v1/webhooks/${hook.id}/deliveries/${done.data[0].id}/replay`, { key: tenant.key });
  expect(again).toMatchObject({ status: 409, body: { error: { code: "conflict", message: "this delivery is pending already: it is posted when it is due" } } });
  await mail.mail.deliverWebhooks();
  expect(receiver.received.map((entry) => entry.id)).toEqual([event.id, event.id, event.id, event.id]);
  const replayedDone = await deliveries(tenant.key, hook.id, "?state=delivered");
  expect(replayedDone.data[0].attempts.map((attempt: { status: number | null }) => attempt.status)).toEqual([500, null, 200, 200]);
  expect((await deliveries(tenant.key, hook.id, "?state=pending")).data).toEqual([]);
});

test("a receiver that never answers 2xx gets every retry of the schedule, then the delivery is failed; a replay delivers it", async () => {
  const tenant = await mail.tenant();
  const hook = await endpoint(tenant.key, ["email.bounced"]);
  receiver.secret = hook.secret;
  const attemptsMax = webhookRetryDelaysMs.length + 1;
  receiver.script.push(...Array<"fail">(attemptsMax).fill("fail"));
  await emit({ tenantId: tenant.id, type: "email.bounced", emailId: "em_2", data: { email_id: "em_2", bounce: { class: "unknown_mailbox" } } });

  await mail.mail.deliverWebhooks();
  for (const delay of webhookRetryDelaysMs) {
    mail.clock.advance(delay - 1_000);
    await mail.mail.deliverWebhooks();
    mail.clock.advance(1_000);
    await mail.mail.deliverWebhooks();
  }
  expect(receiver.received).toHaveLength(attemptsMax);
  const failed = await deliveries(tenant.key, hook.id, "?state=failed");
  expect(failed.data).toHaveLength(1);
  expect(failed.data[0]).toMatchObject({ state: "failed", next_attempt_at: null, last_status: 500, last_error: "HTTP 500", delivered_at: null });
  expect(failed.data[0].attempts).toHaveLength(attemptsMax);

  // Failed for good: a day later nothing more is posted.
  mail.clock.advance(86_400_000);
  await mail.mail.deliverWebhooks();
  expect(receiver.received).toHaveLength(attemptsMax);

  const replayed = await mail.call("POST", `/v1/webhooks/${hook.id}/deliveries/${failed.data[0].id}/replay`, { key: tenant.key });
  expect(replayed.body.state).toBe("pending");
  await mail.mail.deliverWebhooks();
  expect(receiver.received.at(-1)!.answer).toBe("ok");
  expect((await deliveries(tenant.key, hook.id)).data[0]).toMatchObject({ state: "delivered", last_status: 200 });
});

test("a delivery leased by a process that was killed is posted once its lease runs out", async () => {
  const tenant = await mail.tenant();
  const hook = await endpoint(tenant.key, ["email.sent"]);
  receiver.secret = hook.secret;
  await emit({ tenantId: tenant.id, type: "email.sent", emailId: "em_3", data: { email_id: "em_3" } });
  // Another process fans the event out and leases its delivery, then dies before posting it.
  const sql = mail.mail.ctx.database.sql;
  const stores = { events: new EventStore(sql), webhooks: new WebhookStore(sql), deliveries: new WebhookDeliveryStore(sql) };
  expect(await fanOut(stores, mail.clock.now())).toBe(1);
  const leaseMs = timeoutMs + webhookLeaseMarginMs;
  expect(await stores.deliveries.claimDue("killed-process", mail.clock.now(), leaseMs, 10)).toHaveLength(1);

  await mail.mail.deliverWebhooks();
  expect(receiver.received).toHaveLength(0);
  mail.clock.advance(leaseMs - 1_000);
  await mail.mail.deliverWebhooks();
  expect(receiver.received).toHaveLength(0);
  mail.clock.advance(1_001);
  await mail.mail.deliverWebhooks();
  expect(receiver.types()).toEqual(["email.sent"]);
  expect((await deliveries(tenant.key, hook.id)).data[0]).toMatchObject({ state: "delivered", attempts: [expect.objectContaining({ status: 200 })] });
});

test("rotating the secret signs every delivery not yet posted with the new one at once", async () => {
  const tenant = await mail.tenant();
  const hook = await endpoint(tenant.key, ["email.complained"]);
  receiver.secret = hook.secret;
  await emit({ tenantId: tenant.id, type: "email.complained", emailId: "em_4", data: { email_id: "em_4" } });
  await mail.mail.deliverWebhooks();
  expect(receiver.received).toHaveLength(1);

  const rotated = await mail.call("POST", `/v1/webhooks/${hook.id}/rotate-secret`, { key: tenant.key });
  expect(rotated.status).toBe(200);
  expect(rotated.body).toEqual({ id: hook.id, url: receiver.url, events: ["email.complained"], enabled: true, created_at: iso, updated_at: iso, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
  expect(rotated.body.secret).not.toBe(hook.secret);
  // The secret is not shown anywhere else.
  expect((await mail.call("GET", `/v1/webhooks/${hook.id}`, { key: tenant.key })).body.secret).toBeUndefined();

  // The receiver still verifies with the old secret: it refuses (401) and the delivery is retried.
  await emit({ tenantId: tenant.id, type: "email.complained", emailId: "em_5", data: { email_id: "em_5" } });
  await mail.mail.deliverWebhooks();
  expect(receiver.badSignatures).toBe(1);
  receiver.secret = rotated.body.secret;
  mail.clock.advance(webhookRetryDelaysMs[0]!);
  await mail.mail.deliverWebhooks();
  expect(receiver.received.map((entry) => entry.body.data.email_id)).toEqual(["em_4", "em_5"]);
  const [last] = (await deliveries(tenant.key, hook.id)).data;
  expect(last.attempts.map((attempt: { status: number }) => attempt.status)).toEqual([401, 200]);
});

test("a redirect is not followed and a huge answer is cut to its excerpt: both are retried", async () => {
  const tenant = await mail.tenant();
  const hook = await endpoint(tenant.key, ["email.deferred"]);
  receiver.secret = hook.secret;
  receiver.script.push("redirect", "huge");
  await emit({ tenantId: tenant.id, type: "email.deferred", emailId: "em_6", data: { email_id: "em_6" } });
  await mail.mail.deliverWebhooks();
  mail.clock.advance(webhookRetryDelaysMs[0]!);
  await mail.mail.deliverWebhooks();
  mail.clock.advance(webhookRetryDelaysMs[1]!);
  await mail.mail.deliverWebhooks();
  expect(receiver.received.map((entry) => entry.answer)).toEqual(["redirect", "huge", "ok"]);
  const [entry] = (await deliveries(tenant.key, hook.id)).data;
  expect(entry.attempts).toEqual([
    { started_at: iso, duration_ms: expect.any(Number), status: 307, error: "HTTP 307", response_excerpt: null },
    { started_at: iso, duration_ms: expect.any(Number), status: 500, error: "HTTP 500", response_excerpt: "<".repeat(webhookResponseExcerptBytesMax) },
    { started_at: iso, duration_ms: expect.any(Number), status: 200, error: null, response_excerpt: "ok" },
  ]);
});

test("two processes passing at once post each delivery once", async () => {
  const tenant = await mail.tenant();
  const hook = await endpoint(tenant.key, ["email.sent"]);
  receiver.secret = hook.secret;
  const emitted = await new EventStore(mail.mail.ctx.database.sql).emit(
    Array.from({ length: 75 }, (_, index) => ({ tenantId: tenant.id, type: "email.sent" as const, emailId: `em_${index}`, data: { email_id: `em_${index}` } })),
    mail.clock.now(),
  );
  const sql = mail.mail.ctx.database.sql;
  const other = new WebhookWorker({ events: new EventStore(sql), webhooks: new WebhookStore(sql), deliveries: new WebhookDeliveryStore(sql), now: mail.clock.now, fetch, timeoutMs, log: () => {} });
  const [ours, theirs] = await Promise.all([mail.mail.deliverWebhooks(), other.run()]);
  expect(ours + theirs).toBe(emitted.length);
  expect(receiver.received.map((entry) => entry.id).sort()).toEqual(emitted.map((event) => event.id).sort());
  const [{ n }] = await sql`SELECT COUNT(*) AS n FROM mail_webhook_attempts`;
  expect(Number(n)).toBe(emitted.length);
  await other.stop();
});
