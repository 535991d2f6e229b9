// The rate limit per API key over HTTP, with time frozen so the edge is exact: 20 requests
// at once pass with RateLimit-* headers counting down, the 21st is 429 `rate_limited` with
// Retry-After, 100 ms later one more passes; another key has its own bucket; the root key and
// refused keys are not counted.
import { afterAll, beforeAll, expect, setSystemTime, test } from "bun:test";
import { defaultRateLimitBurst, MailSettingsError, parseMailSettings } from "../../../server/mail/settings.ts";
import { mailRootKey, startTestMail, type TestMail } from "../harness.ts";

let mail: TestMail;
beforeAll(async () => {
  setSystemTime(new Date("2026-11-27T12:00:00.000Z"));
  mail = await startTestMail({ MAIL_RATE_LIMIT_BURST: String(defaultRateLimitBurst) });
});
afterAll(async () => {
  await mail.close();
  setSystemTime();
});

const limits = (headers: Headers) => ({
  limit: headers.get("ratelimit-limit"),
  remaining: headers.get("ratelimit-remaining"),
  reset: headers.get("ratelimit-reset"),
  retryAfter: headers.get("retry-after"),
});

test("20 requests at once pass, the 21st is 429 with Retry-After, and the bucket refills with the clock", async () => {
  const tenant = await mail.tenant();
  const first = await mail.call("GET", "/v1/usage", { key: tenant.key });
  expect({ status: first.status, ...limits(first.headers) }).toEqual({ status: 200, limit: "20", remaining: "19", reset: "1", retryAfter: null });
  for (let request = 2; request < 20; request++) expect((await mail.call("GET", "/v1/api-keys", { key: tenant.key })).status).toBe(200);
  const twentieth = await mail.call("POST", "/v1/domains", { key: tenant.key, body: { name: "x" } });
  expect({ status: twentieth.status, ...limits(twentieth.headers) }).toEqual({ status: 400, limit: "20", remaining: "0", reset: "2", retryAfter: null });
  const refused = await mail.call("POST", "/v1/domains", { key: tenant.key, body: { name: "x" } });
  expect({ status: refused.status, body: refused.body, ...limits(refused.headers) }).toEqual({
    status: 429,
    body: { error: { code: "rate_limited", message: "this API key may make 20 requests at once and 10 a second; retry after 1 s" } },
    limit: "20",
    remaining: "0",
    reset: "2",
    retryAfter: "1",
  });
  expect((await mail.call("POST", "/v1/api-keys", { key: tenant.key, body: {} })).status).toBe(429);
  // Another key of the same tenant has its own bucket, and the operator's root key has none.
  const minted = await mail.call("POST", `/v1/tenants/${tenant.id}/api-keys`, { key: mailRootKey, body: {} });
  expect({ status: minted.status, limit: minted.headers.get("ratelimit-limit") }).toEqual({ status: 201, limit: null });
  expect((await mail.call("GET", "/v1/usage", { key: minted.body.token })).headers.get("ratelimit-remaining")).toBe("19");
  for (let request = 0; request < 25; request++) expect((await mail.call("GET", `/v1/tenants/${tenant.id}`, { key: mailRootKey })).status).toBe(200);

  mail.clock.advance(99);
  expect((await mail.call("GET", "/v1/usage", { key: tenant.key })).status).toBe(429);
  mail.clock.advance(1);
  const refilled = await mail.call("GET", "/v1/usage", { key: tenant.key });
  expect({ status: refilled.status, ...limits(refilled.headers) }).toEqual({ status: 200, limit: "20", remaining: "0", reset: "2", retryAfter: null });
  mail.clock.advance(2_000);
  expect(limits((await mail.call("GET", "/v1/usage", { key: tenant.key })).headers)).toEqual({ limit: "20", remaining: "19", reset: "1", retryAfter: null });
});

test("refused keys get their 401 or 403, never a 429, and are not counted", async () => {
  const tenant = await mail.tenant();
  const sending = await mail.call("POST", "/v1/api-keys", { key: tenant.key, body: { permission: "sending_access" } });
  for (let request = 0; request < 25; request++) {
    expect((await mail.call("GET", "/v1/domains", { key: sending.body.token })).status).toBe(403);
    expect((await mail.call("GET", "/v1/domains", { key: "mk_live_unknown" })).status).toBe(401);
  }
  expect((await mail.call("GET", "/v1/usage", { key: tenant.key })).headers.get("ratelimit-remaining")).toBe("18");
});

test("MAIL_RATE_LIMIT_BURST and MAIL_RATE_LIMIT_PER_SECOND set the bucket; anything but a positive integer is refused at start", async () => {
  const slow = await startTestMail({ MAIL_RATE_LIMIT_BURST: "2", MAIL_RATE_LIMIT_PER_SECOND: "1" });
  try {
    const tenant = await slow.tenant();
    expect(limits((await slow.call("GET", "/v1/usage", { key: tenant.key })).headers)).toEqual({ limit: "2", remaining: "1", reset: "1", retryAfter: null });
    await slow.call("GET", "/v1/usage", { key: tenant.key });
    const refused = await slow.call("GET", "/v1/usage", { key: tenant.key });
    expect({ status: refused.status, message: refused.body.error.message, ...limits(refused.headers) }).toEqual({
      status: 429,
      message: "this API key may make 2 requests at once and 1 a second; retry after 1 s",
      limit: "2",
      remaining: "0",
      reset: "2",
      retryAfter: "1",
    });
  } finally {
    await slow.close();
  }
  for (const [name, value] of [["MAIL_RATE_LIMIT_BURST", "0"], ["MAIL_RATE_LIMIT_PER_SECOND", "1.5"], ["MAIL_RATE_LIMIT_PER_SECOND", "ten"], ["MAIL_RATE_LIMIT_BURST", "-1"], ["MAIL_RATE_LIMIT_BURST", "9".repeat(400)]]) {
    expect(() => parseMailSettings({ [name!]: value }, null)).toThrow(new MailSettingsError(`${name} must be a positive integer`));
  }
});
