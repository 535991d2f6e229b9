// Where two things meet, the later truth stands and nothing is done twice: a scheduled batch
// larger than a pass fires each email once, whole; a bounce report that lands while a worker
// still holds the recipient is not overwritten by the worker's "delivered"; an idempotent retry
// is answered as before even after its recipient was suppressed; retention never deletes mail
// still waiting to be sent; suppression pages go on past long addresses.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { dayMs, hourMs } from "../../../server/clock.ts";
import { deliveryLeaseMs, emailsPerTenantPerPass } from "../../../server/mail/sending/delivery-queue.ts";
import { QueueStore } from "../../../server/mail/store/queue.ts";
import { startClean, startSendingTenant, testEmail as email, type SendingFixture } from "./fixture.ts";

let fixture: SendingFixture;
let key: string;
beforeAll(async () => ({ fixture, key } = await startSendingTenant()));
afterAll(() => fixture.close());
beforeEach(() => startClean(fixture));

const detail = async (id: string) => (await fixture.mail.call("GET", `/v1/emails/${id}`, { key })).body;

test("a scheduled batch larger than one pass's share fires each email once, with all its recipients", async () => {
  const { mail, receiver } = fixture;
  const count = emailsPerTenantPerPass + 5;
  const recipients = Array.from({ length: 3 }, (_, index) => `r${index}@example.net`);
  const batch = await mail.call("POST", "/v1/emails/batch", { key, body: Array.from({ length: count }, () => email({ to: recipients, scheduled_at: "in 1 hour" })) });
  expect(batch.status).toBe(200);
  mail.clock.advance(hourMs);
  await mail.mail.deliverQueued();
  expect(receiver.received.length).toBe(count);
  for (const { id } of batch.body.data as { id: string }[]) {
    const shown = await detail(id);
    expect([shown.status, shown.events.filter((event: any) => event.type === "email.sent").length, shown.recipients.filter((recipient: any) => recipient.status === "delivered").length]).toEqual(["delivered", 1, 3]);
    expect((await mail.call("POST", `/v1/emails/${id}/cancel`, { key })).status).toBe(409);
  }
});

test("a bounce report that lands while a worker holds the recipient stands over the worker's delivered", async () => {
  const { mail } = fixture;
  const sent = await mail.call("POST", "/v1/emails", { key, body: email({ to: ["late@example.net"], scheduled_at: "in 1 minute" }) });
  mail.clock.advance(hourMs);
  const queue = new QueueStore(mail.mail.ctx.database.sql);
  await queue.fire(sent.body.id, mail.clock.now());
  expect((await queue.claim(sent.body.id, "example.net", "worker", mail.clock.now(), deliveryLeaseMs)).length).toBe(1);
  const bounced = { status: "bounced" as const, code: null, enhancedCode: "5.1.1", replyText: "550 5.1.1 gone", bounceClass: "unknown_mailbox", action: "suppress" };
  expect(await queue.markReported(sent.body.id, "late@example.net", ["delivered", "queued", "deferred"], bounced, mail.clock.now())).toBe(true);
  const delivered = { emailId: sent.body.id, address: "late@example.net", status: "delivered" as const, nextAttemptAt: null, code: 250, enhancedCode: null, replyText: "OK", mxHost: "mx.example.net", bounceClass: null, action: null };
  expect(await queue.settle(delivered, "worker", mail.clock.now())).toBe(false);
  expect((await detail(sent.body.id)).recipients[0]).toMatchObject({ status: "bounced", bounce_class: "unknown_mailbox" });
});

test("an idempotent retry is answered as before, even once its recipient bounced and was suppressed", async () => {
  const { mail, receiver } = fixture;
  receiver.answerRcpt("once@example.net", { code: 550, text: "5.1.1 No such user" });
  const request = { key, headers: { "idempotency-key": "retry-after-bounce" }, body: email({ to: ["once@example.net"] }) };
  const first = await mail.call("POST", "/v1/emails", request);
  await mail.mail.deliverQueued();
  expect((await mail.call("GET", "/v1/suppressions/once@example.net", { key })).status).toBe(200);
  const retry = await mail.call("POST", "/v1/emails", request);
  expect([retry.status, retry.body, retry.headers.get("idempotent-replayed")]).toEqual([200, first.body, "true"]);
});

test("retention keeps an email still waiting to be sent, however old; it goes once sent and past retention", async () => {
  const { mail, receiver } = fixture;
  receiver.answerRcpt("slow@example.net", { code: 451, text: "4.3.0 Try later" });
  const waiting = await mail.call("POST", "/v1/emails", { key, body: email({ to: ["slow@example.net"] }) });
  await mail.mail.deliverQueued();
  // Held up for three days (a queue stopped, say) on the free plan, which keeps logs a day.
  await mail.mail.ctx.database.sql`UPDATE mail_recipients SET next_attempt_at = ${mail.clock.now() - 3 * dayMs}, updated_at = ${mail.clock.now() - 3 * dayMs} WHERE email_id = ${waiting.body.id}`;
  await mail.mail.ctx.database.sql`UPDATE mail_emails SET created_at = ${mail.clock.now() - 3 * dayMs}, updated_at = ${mail.clock.now() - 3 * dayMs} WHERE id = ${waiting.body.id}`;
  await mail.mail.sweepRetention();
  expect((await detail(waiting.body.id)).status).toBe("deferred");
  receiver.reset();
  await mail.mail.deliverQueued();
  expect((await detail(waiting.body.id)).status).toBe("delivered");
  mail.clock.advance(2 * dayMs);
  await mail.mail.sweepRetention();
  expect((await mail.call("GET", `/v1/emails/${waiting.body.id}`, { key })).status).toBe(404);
});

test("suppression pages go on past addresses longer than an id", async () => {
  const { mail } = fixture;
  const long = (letter: string) => `${letter.repeat(60)}@${"d".repeat(60)}.example.net`;
  for (const letter of ["a", "b", "c"]) expect((await mail.call("POST", "/v1/suppressions", { key, body: { address: long(letter) } })).status).toBe(201);
  const first = await mail.call("GET", "/v1/suppressions?limit=2", { key });
  expect(first.body.next_cursor.length).toBeGreaterThan(64);
  const second = await mail.call("GET", `/v1/suppressions?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key });
  expect(second.status).toBe(200);
  expect([...first.body.data, ...second.body.data].map((entry: any) => entry.address).filter((address: string) => address.length > 100).sort()).toEqual([long("a"), long("b"), long("c")]);
});
