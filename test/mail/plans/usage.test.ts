// Usage per tenant per month: the free plan's 10,000 emails at their edge (reserved directly
// with large counts, not sent), concurrent reservations that cannot pass the cap together,
// months rolling over, cancellation giving emails back, the usage route and plan changes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ApiError } from "../../../server/http/errors.ts";
import { mailRootKey, startTestMail, type TestMail } from "../harness.ts";

let mail: TestMail;
beforeAll(async () => {
  mail = await startTestMail();
});
afterAll(async () => {
  await mail.close();
});

const november = Date.UTC(2026, 10, 15, 12);
const lastMsOfNovember = Date.UTC(2026, 11, 1) - 1;
const december = Date.UTC(2026, 11, 1);

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return { status: error.status, code: error.code, message: error.message, headers: error.headers };
}

test("the free plan takes 10,000 emails a month: 9,999 and 1 pass, one more is refused until the month ends", async () => {
  const tenant = await mail.tenant();
  const usage = mail.mail.ctx.usage;
  expect(await usage.reserve(tenant.id, 9_999, november)).toEqual({ month: "2026-11", monthTotal: 9_999 });
  expect(await usage.reserve(tenant.id, 1, lastMsOfNovember)).toEqual({ month: "2026-11", monthTotal: 10_000 });
  expect(await refusal(usage.reserve(tenant.id, 1, lastMsOfNovember))).toEqual({
    status: 429,
    code: "monthly_quota_exceeded",
    message: "the free plan sends 10,000 emails a month; 10,000 are used and this send has 1; the count resets at 2026-12-01T00:00:00.000Z",
    headers: { "Retry-After": "1" },
  });
  // A new month starts from zero; November keeps its count.
  expect(await usage.reserve(tenant.id, 1, december)).toEqual({ month: "2026-12", monthTotal: 1 });
  expect((await usage.usage(tenant.id, november)).emails).toBe(10_000);
});

test("a send that would pass the cap is refused whole, and a smaller one still fits", async () => {
  const tenant = await mail.tenant();
  const usage = mail.mail.ctx.usage;
  expect(await refusal(usage.reserve(tenant.id, 10_001, november))).toEqual({
    status: 429,
    code: "monthly_quota_exceeded",
    message: "the free plan sends 10,000 emails a month; 0 are used and this send has 10,001; the count resets at 2026-12-01T00:00:00.000Z",
    headers: { "Retry-After": String((december - november) / 1_000) },
  });
  await usage.reserve(tenant.id, 9_990, november);
  expect((await refusal(usage.reserve(tenant.id, 11, november))).message).toStartWith("the free plan sends 10,000 emails a month; 9,990 are used and this send has 11;");
  expect(await usage.reserve(tenant.id, 10, november)).toEqual({ month: "2026-11", monthTotal: 10_000 });
});

test("concurrent reservations never pass the cap together", async () => {
  const tenant = await mail.tenant();
  const results = await Promise.allSettled(Array.from({ length: 25 }, () => mail.mail.ctx.usage.reserve(tenant.id, 1_000, november)));
  expect(results.filter((result) => result.status === "fulfilled").length).toBe(10);
  expect((await mail.mail.ctx.usage.usage(tenant.id, november)).emails).toBe(10_000);
});

test("a cancelled email gives its emails back to the month it was counted in, never below zero", async () => {
  const tenant = await mail.tenant();
  const usage = mail.mail.ctx.usage;
  await usage.reserve(tenant.id, 10_000, november);
  await usage.reserve(tenant.id, 5, december);
  await usage.release(tenant.id, 3, "2026-11");
  expect((await usage.usage(tenant.id, november)).emails).toBe(9_997);
  expect((await usage.usage(tenant.id, december)).emails).toBe(5);
  expect(await usage.reserve(tenant.id, 3, november)).toEqual({ month: "2026-11", monthTotal: 10_000 });
  await usage.release(tenant.id, 50, "2026-12");
  expect((await usage.usage(tenant.id, december)).emails).toBe(0);
  // A month never counted stays uncounted.
  await usage.release(tenant.id, 1, "2026-10");
  expect((await usage.usage(tenant.id, Date.UTC(2026, 9, 2))).emails).toBe(0);
});

test("an unknown tenant reserves nothing", async () => {
  expect(await refusal(mail.mail.ctx.usage.reserve("nope", 1, november))).toEqual({ status: 404, code: "not_found", message: "tenant not found", headers: {} });
});

test("paid plans are never refused and are priced by tier", async () => {
  const tenant = await mail.tenant();
  expect((await mail.call("PATCH", `/v1/tenants/${tenant.id}`, { key: mailRootKey, body: { plan: "growth" } })).body).toMatchObject({ id: tenant.id, plan: "growth" });
  const now = mail.clock.now();
  expect(await mail.mail.ctx.usage.reserve(tenant.id, 50_001, now)).toMatchObject({ monthTotal: 50_001 });
  const month = new Date(now).toISOString().slice(0, 7);
  const [year, monthIndex] = month.split("-").map(Number);
  const usage = await mail.call("GET", "/v1/usage", { key: tenant.key });
  expect(usage.status).toBe(200);
  expect(usage.body).toEqual({
    month,
    plan: "growth",
    emails: 50_001,
    included_emails: 50_000,
    limit: null,
    resets_at: new Date(Date.UTC(year!, monthIndex!, 1)).toISOString(),
    log_retention_days: 7,
    price: {
      currency: "usd",
      monthly_minor: 2_000,
      tiers: [
        { first_email: 50_001, last_email: 500_000, per_thousand_minor: 80, emails: 1, amount_minor: 1 },
        { first_email: 500_001, last_email: null, per_thousand_minor: 60, emails: 0, amount_minor: 0 },
      ],
      total_minor: 2_001,
    },
  });
  // Back on the free plan the month's count already passes the cap: nothing more is sent.
  await mail.call("PATCH", `/v1/tenants/${tenant.id}`, { key: mailRootKey, body: { plan: "free" } });
  expect((await refusal(mail.mail.ctx.usage.reserve(tenant.id, 1, now))).code).toBe("monthly_quota_exceeded");
});

test("GET /v1/usage: a new tenant's month on the free plan; the month rolls over with the clock", async () => {
  const tenant = await mail.tenant();
  await mail.mail.ctx.usage.reserve(tenant.id, 42, mail.clock.now());
  const before = await mail.call("GET", "/v1/usage", { key: tenant.key });
  expect(before.body).toMatchObject({ plan: "free", emails: 42, included_emails: 10_000, limit: 10_000, log_retention_days: 1, price: { currency: "usd", monthly_minor: 0, tiers: [], total_minor: 0 } });
  mail.clock.advance(Date.parse(before.body.resets_at) - mail.clock.now());
  const after = await mail.call("GET", "/v1/usage", { key: tenant.key });
  expect(after.body).toMatchObject({ emails: 0, month: before.body.resets_at.slice(0, 7) });
  expect(after.body.month).not.toBe(before.body.month);
});

test("the root key sets a tenant's plan; GET shows it; wrong plans, keys and tenants are refused", async () => {
  const tenant = await mail.tenant("Planned");
  const shown = await mail.call("GET", `/v1/tenants/${tenant.id}`, { key: mailRootKey });
  expect(shown.body).toMatchObject({ id: tenant.id, name: "Planned", plan: "free" });
  const patched = await mail.call("PATCH", `/v1/tenants/${tenant.id}`, { key: mailRootKey, body: { plan: "scale" } });
  expect({ status: patched.status, body: patched.body }).toEqual({ status: 200, body: { ...shown.body, plan: "scale" } });
  expect((await mail.call("GET", `/v1/tenants/${tenant.id}`, { key: mailRootKey })).body.plan).toBe("scale");
  const oneOf = "plan: one of free, growth, scale";
  const refusals: [unknown, string][] = [
    [{ plan: "enterprise" }, oneOf],
    [{ plan: "free\r\nX-Injected: 1" }, oneOf],
    [{ plan: "<b>free</b>" }, oneOf],
    [{ plan: "Free" }, oneOf],
    [{ plan: "f".repeat(100_000) }, "body /plan: Expected string length less or equal to 32"],
    [{ plan: 1 }, "body /plan: Expected string"],
    [{}, "body /plan: Expected required property"],
    [{ plan: "free", name: "x" }, "body /name: Unexpected property"],
  ];
  for (const [body, message] of refusals) {
    const refused = await mail.call("PATCH", `/v1/tenants/${tenant.id}`, { key: mailRootKey, body });
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 400, body: { error: { code: "validation", message } } });
  }
  expect((await mail.call("PATCH", "/v1/tenants/nope", { key: mailRootKey, body: { plan: "growth" } })).body).toEqual({ error: { code: "not_found", message: "tenant not found" } });
  const byTenantKey = await mail.call("PATCH", `/v1/tenants/${tenant.id}`, { key: tenant.key, body: { plan: "scale" } });
  expect(byTenantKey.status).toBe(401);
  expect((await mail.call("GET", `/v1/tenants/${tenant.id}`, { key: mailRootKey })).body.plan).toBe("scale");
});

test("GET /v1/usage needs the tenant's full-access key", async () => {
  const tenant = await mail.tenant();
  const sending = await mail.call("POST", "/v1/api-keys", { key: tenant.key, body: { permission: "sending_access" } });
  expect((await mail.call("GET", "/v1/usage", { key: sending.body.token })).body).toEqual({
    error: { code: "forbidden", message: "this key has sending access only: it can send emails (POST /v1/emails) and nothing else" },
  });
  expect((await mail.call("GET", "/v1/usage", { key: mailRootKey })).status).toBe(401);
  expect((await mail.call("GET", "/v1/usage")).status).toBe(401);
});
