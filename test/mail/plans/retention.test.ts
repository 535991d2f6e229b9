// The retention sweeper: per plan (free 1 day, growth 7, scale 30) it deletes exactly the
// emails older than the retention, with their recipients, attempts and events, keeps those a
// millisecond younger, those still scheduled or being retried, and deletes idempotency rows past
// 24 hours for everyone; a pass is bounded and the next one carries on. Rows are written
// straight into the store's tables, with time frozen so the edges are exact.
import type { SQL } from "bun";
import { afterAll, beforeAll, expect, setSystemTime, test } from "bun:test";
import { dayMs } from "../../../server/mail/plans/plans.ts";
import { sweepRetention, type RetentionSweep } from "../../../server/mail/plans/retention.ts";
import { mailRootKey, startTestMail, type TestMail } from "../harness.ts";

let mail: TestMail;
let sql: SQL;
beforeAll(async () => {
  setSystemTime(new Date("2026-11-27T12:00:00.000Z"));
  mail = await startTestMail();
  sql = mail.mail.ctx.database.sql;
});
afterAll(async () => {
  await mail.close();
  setSystemTime();
});

async function tenantOn(plan: string): Promise<string> {
  const { id } = await mail.tenant(plan);
  await mail.call("PATCH", `/v1/tenants/${id}`, { key: mailRootKey, body: { plan } });
  return id;
}

interface EmailRows {
  createdAt: number;
  updatedAt?: number;
  scheduledAt?: number | null;
  recipient?: { updatedAt: number; nextAttemptAt: number | null };
}

/** An email with one recipient, one attempt and one event. */
async function insertEmail(tenantId: string, id: string, rows: EmailRows): Promise<void> {
  const updatedAt = rows.updatedAt ?? rows.createdAt;
  await sql`INSERT INTO mail_emails ${sql({
    id, tenant_id: tenantId, domain_id: "d", key_id: "k", from_address: "a@send.test", from_header: "a@send.test", to_addresses: "[]", cc_addresses: "[]", bcc_addresses: "[]",
    reply_to: "[]", subject: "s", tags: "[]", template_id: null, message_id: `<${id}@send.test>`, message: "m", message_bytes: 1, status: "sent",
    scheduled_at: rows.scheduledAt ?? null, created_at: rows.createdAt, updated_at: updatedAt,
  })}`;
  const recipient = rows.recipient ?? { updatedAt, nextAttemptAt: null };
  await sql`INSERT INTO mail_recipients ${sql({ email_id: id, address: "to@example.test", tenant_id: tenantId, domain: "example.test", status: "delivered", attempts: 1, next_attempt_at: recipient.nextAttemptAt, updated_at: recipient.updatedAt })}`;
  await sql`INSERT INTO mail_attempts ${sql({ id: `att_${id}`, email_id: id, domain: "example.test", started_at: rows.createdAt, duration_ms: 5, results: "[]", transcript: "[]", tls: 1 })}`;
  await sql`INSERT INTO mail_events ${sql({ id: `evt_${id}`, tenant_id: tenantId, type: "email.sent", email_id: id, data: "{}", created_at: rows.createdAt, fanned_out: 1 })}`;
}

const ids = async (table: string, column = "id") => ((await sql.unsafe(`SELECT ${column} AS id FROM ${table} ORDER BY ${column}`)) as { id: string }[]).map((row) => row.id);

test("each plan's emails older than its retention go with their recipients, attempts and events; younger ones stay", async () => {
  const now = mail.clock.now();
  const retentionDays = { free: 1, growth: 7, scale: 30 };
  for (const [plan, days] of Object.entries(retentionDays)) {
    const tenant = await tenantOn(plan);
    const cutoff = now - days * dayMs;
    await insertEmail(tenant, `${plan}-old`, { createdAt: cutoff - 1 });
    await insertEmail(tenant, `${plan}-edge`, { createdAt: cutoff });
    // Changed since the cutoff (a late bounce), due since it, or waiting for a retry: kept.
    await insertEmail(tenant, `${plan}-updated`, { createdAt: cutoff - dayMs, updatedAt: cutoff });
    await insertEmail(tenant, `${plan}-scheduled`, { createdAt: cutoff - dayMs, scheduledAt: now + dayMs });
    await insertEmail(tenant, `${plan}-retrying`, { createdAt: cutoff - dayMs, recipient: { updatedAt: cutoff - dayMs, nextAttemptAt: now + 60_000 } });
    await sql`INSERT INTO mail_events ${sql({ id: `evt_${plan}-domain-old`, tenant_id: tenant, type: "domain.verified", domain_id: "d", data: "{}", created_at: cutoff - 1, fanned_out: 1 })}`;
    await sql`INSERT INTO mail_events ${sql({ id: `evt_${plan}-domain-edge`, tenant_id: tenant, type: "domain.failed", domain_id: "d", data: "{}", created_at: cutoff, fanned_out: 0 })}`;
    await sql`INSERT INTO mail_idempotency ${sql({ tenant_id: tenant, idempotency_key: "old", request_hash: "h", status: 200, response: "{}", created_at: now - dayMs - 1 })}`;
    await sql`INSERT INTO mail_idempotency ${sql({ tenant_id: tenant, idempotency_key: "edge", request_hash: "h", status: 200, response: "{}", created_at: now - dayMs })}`;
  }
  // Per plan: one email with its recipient, attempt and event (4 rows), a domain event, an idempotency row.
  expect(await mail.mail.sweepRetention()).toBe(3 * 6);
  const kept = (suffixes: string[]) => ["free", "growth", "scale"].flatMap((plan) => suffixes.map((suffix) => `${plan}-${suffix}`)).sort();
  const emails = kept(["edge", "updated", "scheduled", "retrying"]);
  expect(await ids("mail_emails")).toEqual(emails);
  expect(await ids("mail_recipients", "email_id")).toEqual(emails);
  expect(await ids("mail_attempts")).toEqual(emails.map((id) => `att_${id}`));
  expect(await ids("mail_events")).toEqual([...emails, ...kept(["domain-edge"])].map((id) => `evt_${id}`).sort());
  expect(await ids("mail_idempotency", "idempotency_key")).toEqual(["edge", "edge", "edge"]);
  expect(await mail.mail.sweepRetention()).toBe(0);
  // A millisecond later the edge rows, and the email last changed at the cutoff, are past retention too.
  mail.clock.advance(1);
  expect(await mail.mail.sweepRetention()).toBe(3 * (4 + 1 + 1 + 4));
  expect(await ids("mail_emails")).toEqual(kept(["scheduled", "retrying"]));
  await sql`DELETE FROM mail_events`;
  await sql`DELETE FROM mail_attempts`;
  await sql`DELETE FROM mail_recipients`;
  await sql`DELETE FROM mail_emails`;
});

test("a pass deletes at most its batch per plan, and the next pass carries on where the rows say", async () => {
  const tenant = await tenantOn("growth");
  const old = mail.clock.now() - 8 * dayMs;
  for (let index = 0; index < 5; index++) await insertEmail(tenant, `batch-${index}`, { createdAt: old + index });
  const batches: number[] = [];
  for (let rows = -1; rows !== 0; ) {
    rows = await sweepRetention(sql, mail.clock.now(), () => {}, undefined, 2);
    batches.push(rows);
  }
  expect(batches).toEqual([8, 8, 4, 0]);
  // A pass stopped after an email's children were deleted leaves the email; the next pass deletes it.
  await insertEmail(tenant, "half-swept", { createdAt: old });
  await sql`DELETE FROM mail_events WHERE email_id = 'half-swept'`;
  await sql`DELETE FROM mail_attempts WHERE email_id = 'half-swept'`;
  expect(await sweepRetention(sql, mail.clock.now(), () => {})).toBe(2);
  expect(await ids("mail_emails")).toEqual([]);
});

test("other tables join the sweep as a RetentionSweep in the list, and each deletion is logged", async () => {
  const seen: number[] = [];
  const lines: string[] = [];
  const inbound: RetentionSweep = {
    name: "inbound emails",
    sweep: async (_sql, now, batch) => {
      seen.push(now, batch);
      return 3;
    },
  };
  expect(await sweepRetention(sql, 1_000, (line) => lines.push(line), [inbound], 7)).toBe(3);
  expect(seen).toEqual([1_000, 7]);
  expect(lines).toEqual(["mail: retention deleted 3 rows of inbound emails"]);
});
