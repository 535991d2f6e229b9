// Sending domains: added with a fresh DKIM key and the records to publish, verified against a
// real local DNS server (long TXT records split into strings as DNS does), failed when a record
// goes missing or is never published within the window, held as they are while DNS does not
// answer. Only the tenant that added a domain sees it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { domainVerifyWindowMs } from "../../server/mail/domains/domains-service.ts";
import { mailHostname, startTestMail, type TestMail } from "./harness.ts";

let mail: TestMail;
beforeAll(async () => {
  mail = await startTestMail({ MAIL_DOMAIN_CHECK_INTERVAL_MS: "3600000" });
});
afterAll(async () => {
  await mail.close();
});

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

function publish(domain: { records: { record: string; name: string; type: string; value: string; priority: number | null }[] }, except: string[] = []) {
  const byName = new Map<string, { TXT: string[]; MX: { exchange: string; priority: number }[] }>();
  for (const record of domain.records) {
    if (except.includes(record.record)) {
      // Left out: its name answers no such record.
      if (!byName.has(record.name)) byName.set(record.name, { TXT: [], MX: [] });
      continue;
    }
    const entry = byName.get(record.name) ?? { TXT: [], MX: [] };
    if (record.type === "TXT") entry.TXT.push(record.value);
    else entry.MX.push({ exchange: record.value, priority: record.priority! });
    byName.set(record.name, entry);
  }
  for (const [name, records] of byName) mail.dns.set(name, records);
}

test("a domain is added with its DKIM key and records, verifies once they are published, and fails when one is removed", async () => {
  const tenant = await mail.tenant();
  const added = await mail.call("POST", "/v1/domains", { key: tenant.key, body: { name: "Send.Acme-Example.com." } });
  expect(added.status).toBe(201);
  const selector = added.body.dkim_selector as string;
  expect(selector).toMatch(/^svc\d{8}$/);
  const dkimValue = added.body.records[0].value as string;
  expect(dkimValue).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]{300,}={0,2}$/);
  const notFound = (record: string, name: string, type: string, value: string, priority: number | null, required: boolean) => ({ record, name, type, value, priority, ttl: "Auto", required, status: "not_found", found: [] });
  expect(added.body).toEqual({
    id: expect.any(String),
    name: "send.acme-example.com",
    status: "pending",
    receiving: false,
    dkim_selector: selector,
    failure: null,
    checked_at: null,
    verified_at: null,
    created_at: iso,
    records: [
      notFound("DKIM", `${selector}._domainkey.send.acme-example.com`, "TXT", dkimValue, null, true),
      notFound("MX", "bounces.send.acme-example.com", "MX", mailHostname, 10, true),
      notFound("SPF", "bounces.send.acme-example.com", "TXT", `v=spf1 a:${mailHostname} -all`, null, true),
      notFound("DMARC", "_dmarc.send.acme-example.com", "TXT", "v=DMARC1; p=none;", null, false),
    ],
  });
  // The key the domain signs with matches the key its record publishes.
  const [stored] = await mail.mail.ctx.database.sql`SELECT dkim_private_key FROM mail_domains WHERE id = ${added.body.id}`;
  const privateKey = createPrivateKey(stored.dkim_private_key);
  const publicKey = createPublicKey({ key: Buffer.from(dkimValue.split("p=")[1]!, "base64"), format: "der", type: "spki" });
  expect(verify("sha256", Buffer.from("probe"), publicKey, sign("sha256", Buffer.from("probe"), privateKey))).toBe(true);
  expect((publicKey.asymmetricKeyDetails as { modulusLength: number }).modulusLength).toBe(2048);

  // Nothing published yet: still pending, with what is missing.
  const early = await mail.call("POST", `/v1/domains/${added.body.id}/verify`, { key: tenant.key });
  expect(early.body).toMatchObject({ status: "pending", checked_at: iso, failure: expect.stringContaining("not found as published: DKIM") });
  // Published (the DKIM record is longer than 255 bytes: DNS splits it into strings).
  publish(added.body);
  const verified = await mail.call("POST", `/v1/domains/${added.body.id}/verify`, { key: tenant.key });
  expect(verified.body).toMatchObject({ status: "verified", failure: null, verified_at: iso });
  expect(verified.body.records.map((record: { record: string; status: string }) => [record.record, record.status])).toEqual([
    ["DKIM", "verified"],
    ["MX", "verified"],
    ["SPF", "verified"],
    ["DMARC", "verified"],
  ]);
  expect(verified.body.records[1].found).toEqual([`10 ${mailHostname}`]);

  // The DKIM record is removed; the scheduled check an hour later fails the domain.
  publish(added.body, ["DKIM"]);
  mail.clock.advance(3_600_001);
  expect(await mail.mail.checkDomains()).toBeGreaterThanOrEqual(1);
  const failed = await mail.call("GET", `/v1/domains/${added.body.id}`, { key: tenant.key });
  expect(failed.body).toMatchObject({ status: "failed", failure: `not found as published: DKIM (${selector}._domainkey.send.acme-example.com: not_found)` });
});

test("a domain never published fails after the verification window; while DNS does not answer, the status holds", async () => {
  const tenant = await mail.tenant();
  const added = await mail.call("POST", "/v1/domains", { key: tenant.key, body: { name: "quiet-example.org" } });
  publish(added.body, ["DKIM"]);
  mail.dns.fail(added.body.records[0].name, "SERVFAIL");
  const held = await mail.call("POST", `/v1/domains/${added.body.id}/verify`, { key: tenant.key });
  expect(held.body).toMatchObject({ status: "pending", failure: "DNS did not answer for every record; the status stays as it was until it does" });
  expect(held.body.records[0].status).toBe("temporary_error");
  mail.dns.set(added.body.records[0].name, {});
  mail.clock.advance(domainVerifyWindowMs);
  const failed = await mail.call("POST", `/v1/domains/${added.body.id}/verify`, { key: tenant.key });
  expect(failed.body.status).toBe("failed");
  // Published late, it still verifies.
  publish(added.body);
  const late = await mail.call("POST", `/v1/domains/${added.body.id}/verify`, { key: tenant.key });
  expect([late.body.status, late.body.failure]).toEqual(["verified", null]);
});

test("receiving adds the domain's own MX to what must be published; bad names, duplicates and other tenants' domains are refused", async () => {
  const tenant = await mail.tenant();
  const added = await mail.call("POST", "/v1/domains", { key: tenant.key, body: { name: "bücher-example.de", receiving: true } });
  expect(added.body.name).toBe("xn--bcher-example-wob.de");
  expect(added.body.records.map((record: { record: string; name: string; required: boolean }) => [record.record, record.name, record.required])).toEqual([
    ["DKIM", `${added.body.dkim_selector}._domainkey.xn--bcher-example-wob.de`, true],
    ["MX", "bounces.xn--bcher-example-wob.de", true],
    ["SPF", "bounces.xn--bcher-example-wob.de", true],
    ["RECEIVING_MX", "xn--bcher-example-wob.de", true],
    ["DMARC", "_dmarc.xn--bcher-example-wob.de", false],
  ]);
  const off = await mail.call("PATCH", `/v1/domains/${added.body.id}`, { key: tenant.key, body: { receiving: false } });
  expect(off.body.records.map((record: { record: string }) => record.record)).toEqual(["DKIM", "MX", "SPF", "DMARC"]);
  for (const name of ["localhost", "exa mple.com", "a/b.com", "-bad.com", "user@example.com", "x".repeat(64) + ".com", "example"]) {
    const refused = await mail.call("POST", "/v1/domains", { key: tenant.key, body: { name } });
    expect([refused.status, refused.body.error.code]).toEqual([400, "validation"]);
  }
  expect((await mail.call("POST", "/v1/domains", { key: tenant.key, body: { name: "BÜCHER-example.de" } })).body).toEqual({
    error: { code: "conflict", message: "xn--bcher-example-wob.de is already one of your domains" },
  });
  const other = await mail.tenant("Other");
  for (const [method, path, body] of [
    ["GET", `/v1/domains/${added.body.id}`, undefined],
    ["POST", `/v1/domains/${added.body.id}/verify`, undefined],
    ["PATCH", `/v1/domains/${added.body.id}`, { receiving: true }],
    ["DELETE", `/v1/domains/${added.body.id}`, undefined],
  ] as const) {
    expect((await mail.call(method, path, { key: other.key, body })).body).toEqual({ error: { code: "not_found", message: "domain not found" } });
  }
  expect((await mail.call("GET", "/v1/domains", { key: other.key })).body).toEqual({ data: [] });
  expect((await mail.call("DELETE", `/v1/domains/${added.body.id}`, { key: tenant.key })).body).toEqual({ id: added.body.id, deleted: true });
  expect((await mail.call("GET", `/v1/domains/${added.body.id}`, { key: tenant.key })).status).toBe(404);
});
