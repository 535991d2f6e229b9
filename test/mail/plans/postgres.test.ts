// The plans' statements on PostgreSQL (MAIL_DATABASE_URL), as replicas sharing the store run
// them: the migration adding plans, the reservation at the free cap and under concurrency, a
// refund, the usage route, and a retention pass with its row-value and IN-list deletes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { dayMs } from "../../../server/mail/plans/plans.ts";
import { mailRootKey, startTestMailOnPostgres, type TestMail } from "../harness.ts";

let mail: TestMail;
beforeAll(async () => {
  mail = await startTestMailOnPostgres();
}, 120_000);
afterAll(async () => {
  await mail?.close();
});

const november = Date.UTC(2026, 10, 15);

test("the free cap holds at its edge and under concurrency; a refund and the usage route read the same count", async () => {
  const tenant = await mail.tenant();
  const usage = mail.mail.ctx.usage;
  expect(await usage.reserve(tenant.id, 9_999, november)).toEqual({ month: "2026-11", monthTotal: 9_999 });
  const racing = await Promise.allSettled(Array.from({ length: 10 }, () => usage.reserve(tenant.id, 1, november)));
  expect(racing.filter((result) => result.status === "fulfilled").length).toBe(1);
  expect(racing.filter((result) => result.status === "rejected").map((result) => (result as PromiseRejectedResult).reason.code)).toEqual(Array(9).fill("monthly_quota_exceeded"));
  await usage.release(tenant.id, 2, "2026-11");
  expect((await usage.usage(tenant.id, november)).emails).toBe(9_998);
  const other = await mail.tenant();
  await usage.reserve(other.id, 7, mail.clock.now());
  expect((await mail.call("GET", "/v1/usage", { key: other.key })).body).toMatchObject({ plan: "free", emails: 7, limit: 10_000 });
  expect((await mail.call("PATCH", `/v1/tenants/${tenant.id}`, { key: mailRootKey, body: { plan: "scale" } })).body.plan).toBe("scale");
  expect(await usage.reserve(tenant.id, 5_000, november)).toEqual({ month: "2026-11", monthTotal: 14_998 });
});

test("a retention pass deletes an old email with its children, old domain events and idempotency rows", async () => {
  const sql = mail.mail.ctx.database.sql;
  const { id: tenant } = await mail.tenant();
  const old = mail.clock.now() - 2 * dayMs;
  await sql`INSERT INTO mail_emails ${sql({
    id: "pg-old", tenant_id: tenant, domain_id: "d", key_id: "k", from_address: "a@send.test", from_header: "a@send.test", to_addresses: "[]", cc_addresses: "[]", bcc_addresses: "[]",
    reply_to: "[]", subject: "s", tags: "[]", template_id: null, message_id: "<pg-old@send.test>", message: "m", message_bytes: 1, status: "sent", scheduled_at: null, created_at: old, updated_at: old,
  })}`;
  await sql`INSERT INTO mail_recipients ${sql({ email_id: "pg-old", address: "to@example.test", tenant_id: tenant, domain: "example.test", status: "delivered", attempts: 1, next_attempt_at: null, updated_at: old })}`;
  await sql`INSERT INTO mail_events ${sql({ id: "evt_pg", tenant_id: tenant, type: "domain.verified", domain_id: "d", data: "{}", created_at: old, fanned_out: 1 })}`;
  await sql`INSERT INTO mail_idempotency ${sql({ tenant_id: tenant, idempotency_key: "k", request_hash: "h", status: 200, response: "{}", created_at: old })}`;
  expect(await mail.mail.sweepRetention()).toBe(4);
  expect(await mail.mail.sweepRetention()).toBe(0);
});
