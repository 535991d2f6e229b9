// The send routes' contract beyond one good email: Idempotency-Key replay and conflict, batches
// accepted whole or refused whole, scheduled sends that fire on the (injected) clock and can be
// moved or cancelled, header injection refused in every header-bound field, and the refusals
// for senders, keys and tenants.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { hourMs, minuteMs } from "../../../server/clock.ts";
import { simpleParser } from "mailparser";
import { batchEmailsMax, idempotencyKeyLengthMax } from "../../../server/mail/sending/send-service.ts";
import { startClean, startSendingTenant, testEmail as email, verifiedDomain, type SendingFixture, type SendingTenant } from "./fixture.ts";

let fixture: SendingFixture;
let key: string;
let tenantId: string;
let domainId: string;
beforeAll(async () => {
  let domain: SendingTenant["domain"];
  ({ fixture, key, tenantId, domain } = await startSendingTenant());
  domainId = domain.id;
});
afterAll(() => fixture.close());
beforeEach(() => startClean(fixture));

const refusal = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });
const answer = (response: { status: number; body: unknown }) => ({ status: response.status, body: response.body });

test("the same Idempotency-Key and body answer the same email; another body under the key is refused", async () => {
  const { mail } = fixture;
  const headers = { "idempotency-key": "order-1001-receipt" };
  const first = await mail.call("POST", "/v1/emails", { key, headers, body: email({ subject: "Receipt 1001" }) });
  expect(first.status).toBe(200);
  expect(first.headers.get("idempotent-replayed")).toBeNull();
  const again = await mail.call("POST", "/v1/emails", { key, headers, body: email({ subject: "Receipt 1001" }) });
  expect(answer(again)).toEqual(answer(first));
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  await mail.mail.deliverQueued();
  expect(fixture.receiver.received.length).toBe(1);
  const listed = await mail.call("GET", `/v1/emails?message_id=${encodeURIComponent(`<${first.body.id}@send.acme.test>`)}`, { key });
  expect(listed.body.data.map((item: any) => item.id)).toEqual([first.body.id]);

  expect(answer(await mail.call("POST", "/v1/emails", { key, headers, body: email({ subject: "Receipt 1002" }) }))).toEqual(
    refusal(422, "idempotency_key_reused", "this Idempotency-Key was used with a different request in the last 24 hours; use a new key for a new email"),
  );
  // Another tenant's identical key is its own.
  const other = await mail.tenant("Other");
  await verifiedDomain(mail, other.key, "send.other.test");
  expect((await mail.call("POST", "/v1/emails", { key: other.key, headers, body: email({ from: "hi@send.other.test", subject: "Receipt 1001" }) })).status).toBe(200);

  // A day later the key is free again.
  mail.clock.advance(24 * hourMs);
  const later = await mail.call("POST", "/v1/emails", { key, headers, body: email({ subject: "Receipt 1002" }) });
  expect(later.status).toBe(200);
  expect(later.body.id).not.toBe(first.body.id);

  const longest = "k".repeat(idempotencyKeyLengthMax);
  expect((await mail.call("POST", "/v1/emails", { key, headers: { "idempotency-key": longest }, body: email() })).status).toBe(200);
  const message = `Idempotency-Key must be 1-${idempotencyKeyLengthMax} visible ASCII characters`;
  expect(answer(await mail.call("POST", "/v1/emails", { key, headers: { "idempotency-key": `${longest}k` }, body: email() }))).toEqual(refusal(400, "validation", message));
  expect(answer(await mail.call("POST", "/v1/emails", { key, headers: { "idempotency-key": "two words" }, body: email() }))).toEqual(refusal(400, "validation", message));
});

test("a batch is accepted whole, or refused whole naming the email and field at fault", async () => {
  const { mail } = fixture;
  const batch = await mail.call("POST", "/v1/emails/batch", { key, body: [email({ subject: "One" }), email({ subject: "Two", to: ["bo@example.net"] })] });
  expect(batch.status).toBe(200);
  expect(batch.body).toEqual({ data: [{ id: expect.any(String), status: "queued" }, { id: expect.any(String), status: "queued" }] });
  await mail.mail.deliverQueued();
  expect(fixture.receiver.received.map((message) => message.recipients).sort()).toEqual([["ana@example.net"], ["bo@example.net"]]);

  const before = (await mail.call("GET", "/v1/emails?limit=200", { key })).body.data.length;
  expect(answer(await mail.call("POST", "/v1/emails/batch", { key, body: [email(), email({ to: ["not an address"] })] }))).toEqual(
    refusal(422, "invalid_address", "[1].to[0]: the address has no @"),
  );
  expect(answer(await mail.call("POST", "/v1/emails/batch", { key, body: [] }))).toEqual(refusal(400, "validation", "body: must hold at least one send request"));
  expect(answer(await mail.call("POST", "/v1/emails/batch", { key, body: email() }))).toEqual(refusal(400, "validation", "body: must be an array of send requests"));
  const full = Array.from({ length: batchEmailsMax }, () => email());
  expect(answer(await mail.call("POST", "/v1/emails/batch", { key, body: [...full, email()] }))).toEqual(refusal(400, "validation", `body: at most ${batchEmailsMax} emails in a batch; got ${batchEmailsMax + 1}`));
  expect((await mail.call("GET", "/v1/emails?limit=200", { key })).body.data.length).toBe(before);
  const most = await mail.call("POST", "/v1/emails/batch", { key, body: full });
  expect(most.status).toBe(200);
  expect(most.body.data.length).toBe(batchEmailsMax);
});

test("a scheduled email waits for its time, can be moved, fires with its Date, and another is cancelled", async () => {
  const { mail, receiver } = fixture;
  const start = mail.clock.now();
  const scheduled = await mail.call("POST", "/v1/emails", { key, body: email({ subject: "Later", scheduled_at: new Date(start + hourMs).toISOString() }) });
  expect(answer(scheduled)).toEqual({ status: 200, body: { id: expect.any(String), status: "scheduled" } });
  const id = scheduled.body.id;
  expect(await mail.mail.deliverQueued()).toBe(0);

  const moved = await mail.call("PATCH", `/v1/emails/${id}`, { key, body: { scheduled_at: "in 2 hours" } });
  expect(moved.status).toBe(200);
  expect(Date.parse(moved.body.scheduled_at) - start).toBeGreaterThanOrEqual(2 * hourMs);
  expect(moved.body.status).toBe("scheduled");
  mail.clock.advance(hourMs + minuteMs);
  expect(await mail.mail.deliverQueued()).toBe(0);
  mail.clock.advance(hourMs);
  expect(await mail.mail.deliverQueued()).toBe(1);
  expect(receiver.received.length).toBe(1);
  const parsed = await simpleParser(receiver.received[0]!.raw);
  expect(parsed.date?.getTime()).toBe(Math.floor(Date.parse(moved.body.scheduled_at) / 1000) * 1000);
  const fired = (await mail.call("GET", `/v1/emails/${id}`, { key })).body;
  expect(fired.status).toBe("delivered");
  expect(fired.events.map((event: any) => event.type)).toEqual(["email.scheduled", "email.sent", "email.delivered"]);
  expect(fired.events[0].data.scheduled_at).toBe(new Date(start + hourMs).toISOString());
  expect(answer(await mail.call("POST", `/v1/emails/${id}/cancel`, { key }))).toEqual(refusal(409, "not_scheduled", "only a scheduled email can be cancelled; this one is delivered"));
  expect(answer(await mail.call("PATCH", `/v1/emails/${id}`, { key, body: { scheduled_at: "in 1 hour" } }))).toEqual(refusal(409, "not_scheduled", "only a scheduled email can be rescheduled; this one is delivered"));

  const cancelled = await mail.call("POST", "/v1/emails", { key, body: email({ subject: "Never", scheduled_at: new Date(mail.clock.now() + 30 * minuteMs).toISOString() }) });
  const cancel = await mail.call("POST", `/v1/emails/${cancelled.body.id}/cancel`, { key });
  expect(cancel.status).toBe(200);
  expect(cancel.body.status).toBe("cancelled");
  mail.clock.advance(hourMs);
  expect(await mail.mail.deliverQueued()).toBe(0);
  expect(receiver.received.length).toBe(1);
  expect(answer(await mail.call("POST", `/v1/emails/${cancelled.body.id}/cancel`, { key }))).toEqual(refusal(409, "not_scheduled", "only a scheduled email can be cancelled; this one is cancelled"));
  expect(answer(await mail.call("PATCH", `/v1/emails/${id}`, { key, body: { scheduled_at: "yesterday" } }))).toEqual(
    refusal(422, "invalid_value", 'scheduled_at: must be an ISO 8601 time with a zone (2026-12-01T09:30:00Z) or "in N minutes|hours|days"'),
  );
});

test("CR or LF in any header-bound field is refused, and nothing is sent", async () => {
  const { mail } = fixture;
  const cases: [Record<string, unknown>, string][] = [
    [{ subject: "Hi\r\nBcc: victim@example.org" }, "subject"],
    [{ from: "Acme\r\nBcc: victim@example.org <hello@send.acme.test>" }, "from"],
    [{ to: ["ana@example.net\r\nBcc: victim@example.org"] }, "to[0]"],
    [{ cc: ["Ana\n <ana@example.net>"] }, "cc[0]"],
    [{ reply_to: ["reply@example.net\rX: y"] }, "reply_to[0]"],
    [{ headers: { "X-Campaign": "spring\r\nBcc: victim@example.org" } }, 'headers["X-Campaign"]'],
    [{ attachments: [{ filename: "a\r\nContent-Type: text/html.txt", content: "aGk=" }] }, "attachments[0].filename"],
  ];
  for (const [overrides, field] of cases) {
    const refused = await mail.call("POST", "/v1/emails", { key, body: email(overrides) });
    expect([refused.status, refused.body.error.code, refused.body.error.message.startsWith(`${field}: `)]).toEqual([422, "forbidden_character", true]);
  }
  await mail.mail.deliverQueued();
  expect(fixture.receiver.received).toEqual([]);
});

test("senders, keys and tenants: unverified or foreign domains and restricted keys are refused; another tenant's email is not found", async () => {
  const { mail } = fixture;
  await mail.call("POST", "/v1/domains", { key, body: { name: "pending.acme.test" } });
  expect(answer(await mail.call("POST", "/v1/emails", { key, body: email({ from: "hi@pending.acme.test" }) }))).toEqual(
    refusal(403, "domain_not_verified", expect.stringMatching(/^pending\.acme\.test is pending: publish its DNS records and verify it \(POST \/v1\/domains\/[^/]+\/verify\) before sending from it$/) as unknown as string),
  );
  expect(answer(await mail.call("POST", "/v1/emails", { key, body: email({ from: "hi@elsewhere.test" }) }))).toEqual(
    refusal(403, "domain_not_added", "elsewhere.test is not one of your domains: add it (POST /v1/domains) and publish its records"),
  );
  const other = await mail.call("POST", "/v1/domains", { key, body: { name: "news.acme.test" } });
  const restricted = await mail.call("POST", "/v1/api-keys", { key, body: { permission: "sending_access", domain_id: other.body.id } });
  expect(answer(await mail.call("POST", "/v1/emails", { key: restricted.body.token, body: email() }))).toEqual(
    refusal(403, "key_domain_mismatch", "from: this key may send only from its own domain, not from send.acme.test"),
  );
  const sending = await mail.call("POST", "/v1/api-keys", { key, body: { permission: "sending_access", domain_id: domainId } });
  const sent = await mail.call("POST", "/v1/emails", { key: sending.body.token, body: email() });
  expect(sent.status).toBe(200);
  expect(answer(await mail.call("GET", `/v1/emails/${sent.body.id}`, { key: sending.body.token }))).toEqual(
    refusal(403, "forbidden", "this key has sending access only: it can send emails (POST /v1/emails) and nothing else"),
  );

  const unauthorized = refusal(401, "unauthorized", "missing or invalid API key (send it as Authorization: Bearer <key>)");
  const malformed = await fetch(`${mail.url}/v1/emails`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" });
  expect({ status: malformed.status, body: await malformed.json() }).toEqual(unauthorized);
  const malformedWithKey = await fetch(`${mail.url}/v1/emails`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: "{not json" });
  expect(malformedWithKey.status).toBe(400);
  expect(answer(await mail.call("POST", "/v1/emails/batch", { key: "mk_live_nope", body: [] }))).toEqual(unauthorized);

  const stranger = await mail.tenant("Stranger");
  const notFound = refusal(404, "not_found", "email not found");
  expect(answer(await mail.call("GET", `/v1/emails/${sent.body.id}`, { key: stranger.key }))).toEqual(notFound);
  expect(answer(await mail.call("POST", `/v1/emails/${sent.body.id}/cancel`, { key: stranger.key }))).toEqual(notFound);
  expect(answer(await mail.call("PATCH", `/v1/emails/${sent.body.id}`, { key: stranger.key, body: { scheduled_at: "in 1 hour" } }))).toEqual(notFound);
  expect((await mail.call("GET", "/v1/emails", { key: stranger.key })).body).toEqual({ data: [], next_cursor: null });
  expect(tenantId).toBeString();
});

test("each recipient sent to counts against the month; a cancelled scheduled email gives its count back; past the free cap a send is refused whole", async () => {
  const { mail } = fixture;
  const tenant = await mail.tenant("Counted");
  await verifiedDomain(mail, tenant.key, "send.counted.test");
  const from = "hi@send.counted.test";
  const used = async () => (await mail.call("GET", "/v1/usage", { key: tenant.key })).body.emails;
  expect((await mail.call("POST", "/v1/emails", { key: tenant.key, body: email({ from, to: ["a@example.net", "b@example.net"], cc: ["c@example.net"] }) })).status).toBe(200);
  expect(await used()).toBe(3);
  const later = await mail.call("POST", "/v1/emails", { key: tenant.key, body: email({ from, to: ["a@example.net"], scheduled_at: "in 1 hour" }) });
  expect(await used()).toBe(4);
  expect((await mail.call("POST", `/v1/emails/${later.body.id}/cancel`, { key: tenant.key })).status).toBe(200);
  expect(await used()).toBe(3);

  await mail.mail.ctx.usage.reserve(tenant.id, 10_000 - 3 - 2, mail.clock.now());
  expect((await mail.call("POST", "/v1/emails", { key: tenant.key, body: email({ from, to: ["a@example.net", "b@example.net"] }) })).status).toBe(200);
  expect(await used()).toBe(10_000);
  const refused = await mail.call("POST", "/v1/emails", { key: tenant.key, headers: { "idempotency-key": "over-the-cap" }, body: email({ from }) });
  expect(refused.status).toBe(429);
  expect(refused.body.error.code).toBe("monthly_quota_exceeded");
  expect(await used()).toBe(10_000);
  // The refused request did not keep its key: once the month allows, the same key sends.
  mail.clock.advance(32 * 24 * hourMs);
  expect((await mail.call("POST", "/v1/emails", { key: tenant.key, headers: { "idempotency-key": "over-the-cap" }, body: email({ from }) })).status).toBe(200);
});

test("a stored template fills the subject, html and text, its variables HTML-escaped in the html; an unknown one is refused", async () => {
  const { mail, receiver } = fixture;
  const stored = await mail.call("POST", "/v1/templates", { key, body: { id: "welcome", subject: "Welcome, {{name}}", html: "<p>Hello {{ name }}, your plan is {{plan}}.</p>", text: "Hello {{name}}" } });
  expect(stored.status).toBe(201);
  const sent = await mail.call("POST", "/v1/emails", { key, body: { from: "hello@send.acme.test", to: ["ana@example.net"], template: { id: "welcome", variables: { name: "<Ana & Bo>", plan: "Pro" } } } });
  expect(sent.status).toBe(200);
  await mail.mail.deliverQueued();
  const parsed = await simpleParser(receiver.received[0]!.raw);
  expect([parsed.subject, parsed.html, parsed.text?.trim()]).toEqual(["Welcome, <Ana & Bo>", "<p>Hello &#60;Ana &#38; Bo&#62;, your plan is Pro.</p>", "Hello <Ana & Bo>"]);
  expect((await mail.call("GET", `/v1/emails/${sent.body.id}`, { key })).body.template_id).toBe("welcome");
  const missing = await mail.call("POST", "/v1/emails", { key, body: { from: "hello@send.acme.test", to: ["ana@example.net"], template: { id: "nope" } } });
  expect(answer(missing)).toEqual({ status: 422, body: { error: { code: "template_not_found", message: expect.stringMatching(/^template\.id: /) } } });
});

test("search: newest first with a cursor, by recipient, status, tag and creation time; bad filters are refused", async () => {
  const { mail } = fixture;
  const tenant = await mail.tenant("Searcher");
  await verifiedDomain(mail, tenant.key, "send.searcher.test");
  const ids: string[] = [];
  const start = mail.clock.now();
  for (const [index, to] of ["a@example.net", "b@example.net", "a@example.net"].entries()) {
    mail.clock.advance(minuteMs);
    const sent = await mail.call("POST", "/v1/emails", { key: tenant.key, body: email({ from: "hi@send.searcher.test", to: [to], tags: [{ name: "n", value: String(index) }], scheduled_at: "in 1 day" }) });
    ids.push(sent.body.id);
  }
  const search = async (query: string) => (await mail.call("GET", `/v1/emails?${query}`, { key: tenant.key })).body;
  const page1 = await search("limit=2");
  expect([page1.data.map((item: any) => item.id), page1.next_cursor]).toEqual([[ids[2], ids[1]], ids[1]]);
  const page2 = await search(`limit=2&cursor=${page1.next_cursor}`);
  expect([page2.data.map((item: any) => item.id), page2.next_cursor]).toEqual([[ids[0]], null]);
  expect((await search("recipient=a@example.net")).data.map((item: any) => item.id)).toEqual([ids[2], ids[0]]);
  expect((await search("tag=n:1")).data.map((item: any) => item.id)).toEqual([ids[1]]);
  expect((await search("status=scheduled")).data.length).toBe(3);
  expect((await search("status=delivered")).data).toEqual([]);
  const second = new Date(start + 2 * minuteMs).toISOString();
  expect((await search(`created_after=${second}`)).data.map((item: any) => item.id)).toEqual([ids[2], ids[1]]);
  expect((await search(`created_before=${second}`)).data.map((item: any) => item.id)).toEqual([ids[0]]);
  const refusedWith = async (query: string) => answer(await mail.call("GET", `/v1/emails?${query}`, { key: tenant.key }));
  expect(await refusedWith("status=lost")).toEqual(refusal(400, "validation", "status: one of scheduled, queued, deferred, delivered, partially_delivered, bounced, suppressed, failed, cancelled"));
  expect(await refusedWith("color=red")).toEqual(refusal(400, "validation", 'query: "color" is not a search parameter (limit, cursor, recipient, status, message_id, tag, created_after, created_before)'));
  for (const query of ["tag=nocolon", "created_after=yesterday", "limit=201", "limit=0"]) {
    const refused = await refusedWith(query);
    expect([query, refused.status, (refused.body as any).error.code]).toEqual([query, 400, "validation"]);
  }
});
