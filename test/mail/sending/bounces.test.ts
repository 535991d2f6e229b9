// What the recipient's server answers decides each recipient's hop: 550 5.1.1 bounces as an
// unknown mailbox and suppresses the address; 552 5.2.2 (mailbox full), 421 and 451 defer and
// retry on the schedule until the server takes the message or the schedule runs out; a
// domain that does not exist bounces at once. A suppressed address is not sent to again, and
// the answer says so.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { deferredRetryDelaysMs } from "../../../server/mail/sending/retry-schedule.ts";
import { startClean, startSendingTenant, type SendingFixture } from "./fixture.ts";

let fixture: SendingFixture;
let key: string;
beforeAll(async () => ({ fixture, key } = await startSendingTenant()));
afterAll(() => fixture.close());
beforeEach(() => startClean(fixture));

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

async function send(to: string[]): Promise<{ status: number; body: any }> {
  return fixture.mail.call("POST", "/v1/emails", { key, body: { from: "hello@send.acme.test", to, subject: "Hello", text: "Hi" } });
}

async function detail(id: string): Promise<any> {
  return (await fixture.mail.call("GET", `/v1/emails/${id}`, { key })).body;
}

const hops = (email: any) => email.events.map((event: any) => [event.type, event.recipient, event.data.bounce_class ?? null, event.data.action ?? null]);

test("550 5.1.1 bounces as an unknown mailbox and suppresses the address; the next send to it is refused or reported", async () => {
  const { mail, receiver } = fixture;
  receiver.answerRcpt("bob@example.net", { code: 550, text: "5.1.1 <bob@example.net>: Recipient address rejected: User unknown" });
  const sent = await send(["bob@example.net"]);
  expect(sent.status).toBe(200);
  await mail.mail.deliverQueued();
  const email = await detail(sent.body.id);
  expect(email.status).toBe("bounced");
  expect(email.recipients).toEqual([
    {
      address: "bob@example.net",
      status: "bounced",
      attempts: 1,
      next_attempt_at: null,
      last_answer: { code: 550, enhanced_code: "5.1.1", text: "<bob@example.net>: Recipient address rejected: User unknown", mx_host: "mx.example.net" },
      bounce_class: "unknown_mailbox",
      action: "suppress",
      updated_at: iso,
    },
  ]);
  expect(hops(email)).toEqual([
    ["email.sent", null, null, null],
    ["email.bounced", "bob@example.net", "unknown_mailbox", "suppress"],
  ]);
  expect(email.events[1].data).toMatchObject({ kind: "hard", attempt: 1, smtp: { code: 550, enhanced_code: "5.1.1" } });

  const list = await mail.call("GET", "/v1/suppressions", { key });
  expect(list).toMatchObject({ status: 200 });
  expect(list.body).toEqual({
    data: [{ address: "bob@example.net", reason: "hard_bounce", email_id: sent.body.id, bounce_class: "unknown_mailbox", detail: "<bob@example.net>: Recipient address rejected: User unknown", created_at: iso }],
    next_cursor: null,
  });

  const again = await send(["Bob@Example.net"]);
  expect({ status: again.status, body: again.body }).toEqual({
    status: 422,
    body: { error: { code: "recipients_suppressed", message: "to: every recipient is on the suppression list (Bob@example.net); remove them from it (DELETE /v1/suppressions/{address}) to send again" } },
  });
  const mixed = await send(["ana@example.net", "bob@example.net"]);
  expect(mixed.status).toBe(200);
  expect(mixed.body).toEqual({ id: expect.any(String), status: "queued", suppressed_recipients: ["bob@example.net"] });
  await mail.mail.deliverQueued();
  expect(receiver.rcptAttempts).toEqual(["bob@example.net", "ana@example.net"]);
  const mixedEmail = await detail(mixed.body.id);
  expect(mixedEmail.status).toBe("delivered");
  expect(mixedEmail.recipients.map((recipient: any) => [recipient.address, recipient.status])).toEqual([["ana@example.net", "delivered"], ["bob@example.net", "suppressed"]]);
  expect(hops(mixedEmail)).toEqual([
    ["email.sent", null, null, null],
    ["email.failed", "bob@example.net", null, null],
    ["email.delivered", "ana@example.net", null, null],
  ]);
  expect(mixedEmail.events[1].data.reason).toBe("suppressed");

  expect(await mail.call("DELETE", "/v1/suppressions/bob@example.net", { key })).toMatchObject({ status: 200, body: { address: "bob@example.net", deleted: true } });
  expect((await send(["bob@example.net"])).status).toBe(200);
});

test("552 5.2.2 (mailbox full) defers and is retried after a minute; the retry is delivered", async () => {
  const { mail, receiver, mail: { clock } } = fixture;
  receiver.answerRcpt("full@example.net", { code: 552, text: "5.2.2 Mailbox full" }, 1);
  const sent = await send(["full@example.net"]);
  await mail.mail.deliverQueued();
  let email = await detail(sent.body.id);
  expect(email.status).toBe("deferred");
  const { next_attempt_at, updated_at, ...deferred } = email.recipients[0];
  expect(deferred).toEqual({
    address: "full@example.net",
    status: "deferred",
    attempts: 1,
    last_answer: { code: 552, enhanced_code: "5.2.2", text: "Mailbox full", mx_host: "mx.example.net" },
    bounce_class: "mailbox_full",
    action: "retry",
  });
  expect(Date.parse(next_attempt_at) - Date.parse(updated_at)).toBe(deferredRetryDelaysMs[0]!);

  // to a second before the retry, then to it, however long the test has taken so far
  clock.advance(Date.parse(next_attempt_at) - 1_000 - clock.now());
  expect(await mail.mail.deliverQueued()).toBe(0);
  clock.advance(Date.parse(next_attempt_at) - clock.now());
  expect(await mail.mail.deliverQueued()).toBe(1);
  email = await detail(sent.body.id);
  expect(email.status).toBe("delivered");
  expect(hops(email)).toEqual([
    ["email.sent", null, null, null],
    ["email.deferred", "full@example.net", "mailbox_full", "retry"],
    ["email.delivered", "full@example.net", null, null],
  ]);
  expect(email.attempts.length).toBe(2);
  expect(receiver.received.map((message) => message.recipients)).toEqual([["full@example.net"]]);
});

test("421 and 451 defer; a recipient that is never taken bounces when the schedule runs out, without suppression", async () => {
  const { mail, receiver, mail: { clock } } = fixture;
  receiver.answerRcpt("busy@example.net", { code: 421, text: "4.7.0 Too many connections, try again later" }, 1);
  const busy = await send(["busy@example.net"]);
  await mail.mail.deliverQueued();
  expect((await detail(busy.body.id)).recipients[0]).toMatchObject({ status: "deferred", bounce_class: "rate_limited", last_answer: { code: 421, enhanced_code: "4.7.0" } });

  receiver.answerRcpt("grey@example.net", { code: 451, text: "4.3.0 Temporary local problem" });
  const grey = await send(["grey@example.net"]);
  for (const delay of deferredRetryDelaysMs) {
    await mail.mail.deliverQueued();
    clock.advance(delay);
  }
  await mail.mail.deliverQueued();
  const email = await detail(grey.body.id);
  expect(email.status).toBe("bounced");
  expect(email.recipients[0]).toMatchObject({ status: "bounced", attempts: deferredRetryDelaysMs.length + 1, bounce_class: "temporary_server_error", action: "none" });
  const last = email.events.at(-1);
  expect(last.type).toBe("email.bounced");
  expect(last.data.reason).toEndWith(`Gave up after ${deferredRetryDelaysMs.length + 1} attempts.`);
  expect(email.events.filter((event: any) => event.type === "email.deferred").length).toBe(deferredRetryDelaysMs.length);
  expect((await mail.call("GET", "/v1/suppressions/grey@example.net", { key })).status).toBe(404);
  expect((await detail(busy.body.id)).status).toBe("delivered");
});

test("a recipient domain that does not exist bounces at once as domain_not_found and is suppressed", async () => {
  const { mail } = fixture;
  const sent = await send(["someone@no-such-domain.test"]);
  await mail.mail.deliverQueued();
  const email = await detail(sent.body.id);
  expect(email.recipients[0]).toMatchObject({ status: "bounced", bounce_class: "domain_not_found", action: "suppress", attempts: 1 });
  expect(email.attempts[0].results[0]).toMatchObject({ outcome: "bounced", reason: "domain_not_found" });
  expect((await mail.call("GET", "/v1/suppressions/someone@no-such-domain.test", { key })).body).toMatchObject({ reason: "hard_bounce", bounce_class: "domain_not_found" });
});
