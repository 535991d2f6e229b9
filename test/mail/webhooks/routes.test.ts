// The webhook routes: whole answers, the secret shown only at creation and rotation, paging,
// every refusal with its exact body (400 for each field and limit at its edge, hostile URLs,
// 401, 403 for a sending key, 404 for another tenant's endpoint or delivery, 409 past the
// per-tenant limit and for replaying a pending delivery).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mailEventTypes } from "../../../server/mail/store/events.ts";
import { EventStore } from "../../../server/mail/store/events.ts";
import { webhookUrlLengthMax } from "../../../server/mail/webhooks/webhook-url.ts";
import { webhooksPerTenantMax } from "../../../server/mail/webhooks/webhooks-service.ts";
import { startTestMail, type TestMail } from "../harness.ts";

let mail: TestMail;
beforeAll(async () => {
  mail = await startTestMail({}, { webhookPassIntervalMs: 3_600_000 });
});
afterAll(async () => {
  await mail.close();
});

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const refusal = (status: number, code: string, message: string) => ({ status, body: { error: { code, message } } });
const badRequest = (message: string) => refusal(400, "validation", message);
const call = async (method: string, path: string, key: string, body?: unknown) => {
  const { status, body: answer } = await mail.call(method, path, { key, body });
  return { status, body: answer };
};

test("an endpoint is made with its secret (shown only then), read, listed by pages, changed and deleted", async () => {
  const tenant = await mail.tenant();
  const created = await call("POST", "/v1/webhooks", tenant.key, { url: "https://hooks.example.org/mail?source=api", events: ["email.sent", "domain.failed", "email.sent", "email.scheduled"] });
  expect(created).toEqual({
    status: 201,
    body: {
      id: expect.stringMatching(/^whk_[0-9a-f]{32}$/),
      url: "https://hooks.example.org/mail?source=api",
      // Each type once, in the documented order.
      events: ["email.scheduled", "email.sent", "domain.failed"],
      enabled: true,
      created_at: iso,
      updated_at: iso,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    },
  });
  const { secret, ...shown } = created.body;
  expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);
  expect(await call("GET", `/v1/webhooks/${created.body.id}`, tenant.key)).toEqual({ status: 200, body: shown });

  const second = await call("POST", "/v1/webhooks", tenant.key, { url: "http://127.0.0.1:9/hook", events: [...mailEventTypes] });
  const third = await call("POST", "/v1/webhooks", tenant.key, { url: "http://[::1]:8080/", events: ["email.received"] });
  const firstPage = await call("GET", "/v1/webhooks?limit=2", tenant.key);
  expect(firstPage.body.data.map((entry: { id: string }) => entry.id)).toEqual([third.body.id, second.body.id]);
  expect(firstPage.body.next_cursor).toBe(second.body.id);
  expect(firstPage.body.data[0].secret).toBeUndefined();
  expect(await call("GET", `/v1/webhooks?limit=2&cursor=${second.body.id}`, tenant.key)).toEqual({ status: 200, body: { data: [shown], next_cursor: null } });

  const changed = await call("PATCH", `/v1/webhooks/${created.body.id}`, tenant.key, { url: "https://other.example.org/", events: ["email.delivered"], enabled: false });
  expect(changed).toEqual({ status: 200, body: { ...shown, url: "https://other.example.org/", events: ["email.delivered"], enabled: false, updated_at: iso } });
  expect((await call("PATCH", `/v1/webhooks/${created.body.id}`, tenant.key, { enabled: true })).body).toEqual({ ...changed.body, enabled: true, updated_at: iso });

  expect(await call("DELETE", `/v1/webhooks/${created.body.id}`, tenant.key)).toEqual({ status: 200, body: { id: created.body.id, deleted: true } });
  expect(await call("GET", `/v1/webhooks/${created.body.id}`, tenant.key)).toEqual(refusal(404, "not_found", "webhook not found"));
  expect(await call("DELETE", `/v1/webhooks/${created.body.id}`, tenant.key)).toEqual(refusal(404, "not_found", "webhook not found"));
  expect((await call("GET", "/v1/webhooks", tenant.key)).body.data.map((entry: { id: string }) => entry.id)).toEqual([third.body.id, second.body.id]);
});

test("every field is checked: 400s with exact bodies, each limit at its edge, hostile URLs refused", async () => {
  const tenant = await mail.tenant();
  const create = (body?: unknown) => call("POST", "/v1/webhooks", tenant.key, body);
  const events = ["email.sent"];
  expect(await create()).toEqual(badRequest("request body is required"));
  expect(await create({})).toEqual(badRequest("body /url: Expected required property"));
  expect(await create({ url: "https://a.example/" })).toEqual(badRequest("body /events: Expected required property"));
  expect(await create({ url: 5, events })).toEqual(badRequest("body /url: Expected string"));
  expect(await create({ url: "https://a.example/", events: "email.sent" })).toEqual(badRequest("body /events: Expected array"));
  expect(await create({ url: "https://a.example/", events: [1] })).toEqual(badRequest("body /events/0: Expected string"));
  expect(await create({ url: "https://a.example/", events, secret: "whsec_mine" })).toEqual(badRequest("body /secret: Unexpected property"));
  expect(await create({ url: "", events })).toEqual(badRequest("body /url: Expected string length greater or equal to 1"));
  expect(await create({ url: "https://a.example/", events: [] })).toEqual(badRequest(`events: name at least one of ${mailEventTypes.join(", ")}`));
  expect(await create({ url: "https://a.example/", events: ["email.sent", "email.opened"] })).toEqual(
    badRequest(`events: "email.opened" is not an event type; the types are email.scheduled, email.sent, email.delivered, email.deferred, email.bounced, email.complained, email.failed, email.received, domain.verified, domain.failed`),
  );
  expect(await create({ url: "https://a.example/", events: ["<script>alert(1)</script>"] })).toEqual(badRequest(`events: "<script>alert(1)</script>" is not an event type; the types are ${mailEventTypes.join(", ")}`));
  expect(await create({ url: "https://a.example/", events: Array(mailEventTypes.length * 2 + 1).fill("email.sent") })).toEqual(badRequest("body /events: Expected array length to be less or equal to 20"));
  expect((await create({ url: "https://a.example/", events: Array(mailEventTypes.length * 2).fill("email.sent") })).status).toBe(201);

  // The URL: http or https only, at most 2,048 characters, no credentials, no CR/LF or spaces.
  const base = "https://a.example/";
  const longest = base + "a".repeat(webhookUrlLengthMax - base.length);
  expect((await create({ url: longest, events })).body.url).toBe(longest);
  expect(await create({ url: `${longest}a`, events })).toEqual(badRequest("body /url: Expected string length less or equal to 2048"));
  // Within 2,048 as sent, longer once the parser has percent-encoded it.
  expect(await create({ url: base + "<".repeat(webhookUrlLengthMax - base.length), events })).toEqual(badRequest("url: at most 2048 characters"));
  expect(await create({ url: "not a url", events })).toEqual(badRequest('url: "not a url" contains spaces or control characters'));
  expect(await create({ url: "hooks.example.org/x", events })).toEqual(badRequest('url: "hooks.example.org/x" is not a URL'));
  expect(await create({ url: "ftp://a.example/x", events })).toEqual(badRequest("url: must be an http:// or https:// URL"));
  expect(await create({ url: "javascript:alert(1)", events })).toEqual(badRequest("url: must be an http:// or https:// URL"));
  expect(await create({ url: "https://user:pass@a.example/", events })).toEqual(badRequest("url: must not contain a user name or password (authenticate the request by its signature)"));
  expect(await create({ url: "https://token@a.example/", events })).toEqual(badRequest("url: must not contain a user name or password (authenticate the request by its signature)"));
  expect(await create({ url: "https://a.example/x\r\nX-Injected: 1", events })).toEqual(badRequest('url: "https://a.example/x\\r\\nX-Injected: 1" contains spaces or control characters'));
  expect(await create({ url: "https://a.example/\u0000", events })).toEqual(badRequest('url: "https://a.example/\\u0000" contains spaces or control characters'));
  // HTML in a path is kept as data: percent-encoded by the URL parser.
  expect((await create({ url: "https://a.example/<b>x</b>", events })).body.url).toBe("https://a.example/%3Cb%3Ex%3C/b%3E");

  const id = (await create({ url: base, events })).body.id;
  const patch = (body?: unknown) => call("PATCH", `/v1/webhooks/${id}`, tenant.key, body);
  expect(await patch()).toEqual(badRequest("request body is required"));
  expect(await patch({})).toEqual(badRequest("body: name at least one of url, events, enabled"));
  expect(await patch({ enabled: "yes" })).toEqual(badRequest("body /enabled: Expected boolean"));
  expect(await patch({ events: [] })).toEqual(badRequest(`events: name at least one of ${mailEventTypes.join(", ")}`));
  expect(await patch({ url: "gopher://a.example/" })).toEqual(badRequest("url: must be an http:// or https:// URL"));
  expect(await patch({ secret: "x" })).toEqual(badRequest("body /secret: Unexpected property"));

  expect(await call("GET", `/v1/webhooks/${id}/deliveries?state=bogus`, tenant.key)).toEqual(badRequest("state: must be one of pending, delivered, failed"));
  expect(await call("GET", `/v1/webhooks/${id}/deliveries?limit=abc`, tenant.key)).toEqual(badRequest("query /limit: Expected union value"));
  expect(await call("GET", `/v1/webhooks/${"x".repeat(65)}`, tenant.key)).toEqual(badRequest("params /id: Expected string length less or equal to 64"));
});

test(`a tenant has at most ${webhooksPerTenantMax} endpoints; deleting one makes room`, async () => {
  const tenant = await mail.tenant();
  const ids: string[] = [];
  for (let index = 0; index < webhooksPerTenantMax; index += 1) {
    const made = await call("POST", "/v1/webhooks", tenant.key, { url: `https://a.example/${index}`, events: ["email.sent"] });
    expect(made.status).toBe(201);
    ids.push(made.body.id);
  }
  const over = { url: "https://a.example/over", events: ["email.sent"] };
  expect(await call("POST", "/v1/webhooks", tenant.key, over)).toEqual(refusal(409, "limit_reached", `at most ${webhooksPerTenantMax} webhook endpoints per account: delete one first`));
  // Another tenant's count is its own.
  expect((await call("POST", "/v1/webhooks", (await mail.tenant("Other")).key, over)).status).toBe(201);
  await call("DELETE", `/v1/webhooks/${ids[0]}`, tenant.key);
  expect((await call("POST", "/v1/webhooks", tenant.key, over)).status).toBe(201);
  expect((await call("POST", "/v1/webhooks", tenant.key, over)).status).toBe(409);
});

test("401 without a valid key, 403 for a sending key, 404 for another tenant's endpoint or delivery", async () => {
  const owner = await mail.tenant("Owner");
  const stranger = await mail.tenant("Stranger");
  const hook = await call("POST", "/v1/webhooks", owner.key, { url: "http://127.0.0.1:9/", events: ["email.sent"] });
  const otherHook = await call("POST", "/v1/webhooks", owner.key, { url: "http://127.0.0.1:9/other", events: ["email.sent"] });
  await new EventStore(mail.mail.ctx.database.sql).emit([{ tenantId: owner.id, type: "email.sent", data: { email_id: "em_1" } }], mail.clock.now());
  await mail.mail.deliverWebhooks();
  const [delivery] = (await call("GET", `/v1/webhooks/${hook.body.id}/deliveries`, owner.key)).body.data;
  expect(delivery).toMatchObject({ state: "pending", last_status: null, last_error: expect.stringMatching(/^could not connect: /) });
  expect(delivery.attempts).toEqual([{ started_at: iso, duration_ms: expect.any(Number), status: null, error: delivery.last_error, response_excerpt: null }]);
  const sending = await call("POST", "/v1/api-keys", owner.key, { permission: "sending_access" });

  const routes: [string, string, unknown?][] = [
    ["POST", "/v1/webhooks", { url: "https://a.example/", events: ["email.sent"] }],
    ["GET", "/v1/webhooks"],
    ["GET", `/v1/webhooks/${hook.body.id}`],
    ["PATCH", `/v1/webhooks/${hook.body.id}`, { enabled: false }],
    ["DELETE", `/v1/webhooks/${hook.body.id}`],
    ["POST", `/v1/webhooks/${hook.body.id}/rotate-secret`],
    ["GET", `/v1/webhooks/${hook.body.id}/deliveries`],
    ["POST", `/v1/webhooks/${hook.body.id}/deliveries/${delivery.id}/replay`],
  ];
  const unauthorized = refusal(401, "unauthorized", "missing or invalid API key (send it as Authorization: Bearer <key>)");
  const forbidden = refusal(403, "forbidden", "this key has sending access only: it can send emails (POST /v1/emails) and nothing else");
  for (const [method, path, body] of routes) {
    expect(await call(method, path, "", body)).toEqual(unauthorized);
    expect(await call(method, path, "mk_live_not_a_key", body)).toEqual(unauthorized);
    // Refused before the body is looked at: a bad body gets the same 401.
    if (method !== "GET") expect(await call(method, path, "mk_live_not_a_key", { junk: true })).toEqual(unauthorized);
    expect(await call(method, path, sending.body.token, body)).toEqual(forbidden);
  }
  for (const [method, path, body] of routes.slice(2)) {
    expect(await call(method, path, stranger.key, body)).toEqual(refusal(404, "not_found", "webhook not found"));
  }
  // A delivery of the owner's other endpoint, and one that does not exist, are not found under this one.
  expect(await call("POST", `/v1/webhooks/${otherHook.body.id}/deliveries/${delivery.id}/replay`, owner.key)).toEqual(refusal(404, "not_found", "delivery not found"));
  expect(await call("POST", `/v1/webhooks/${hook.body.id}/deliveries/whd_nope/replay`, owner.key)).toEqual(refusal(404, "not_found", "delivery not found"));
  expect(await call("POST", `/v1/webhooks/${hook.body.id}/deliveries/${delivery.id}/replay`, owner.key)).toEqual(refusal(409, "conflict", "this delivery is pending already: it is posted when it is due"));
  // Nothing was changed by the refused calls.
  expect((await call("GET", `/v1/webhooks/${hook.body.id}`, owner.key)).body).toMatchObject({ enabled: true, updated_at: hook.body.updated_at });
});
