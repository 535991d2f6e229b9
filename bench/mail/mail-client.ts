// Setting the benchmark up through the mail API (the timed parts use bench/http-client.ts
// instead): a tenant on the `scale` plan (the free plan stops at 10,000 emails a month), its
// key, and its sending domain with the records published in the driver's DNS server and verified.
import type { TestDnsServer } from "../../test/mail/helpers/dns-server.ts";
import { benchMailRootKey } from "./bench-routes.ts";
import { recipientDomain, recipientMx, senderDomain } from "./requests.ts";

export async function call<T = any>(url: string, method: string, path: string, key: string, body?: unknown): Promise<T> {
  const response = await fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

type DomainRecord = { name: string; type: string; value: string; priority: number | null };

/** A tenant on the scale plan sending from a verified senderDomain; the recipients' MX points at 127.0.0.1. Answers its key. */
export async function setUpTenant(mailUrl: string, dns: TestDnsServer): Promise<string> {
  dns.set(recipientDomain, { MX: [{ exchange: recipientMx, priority: 10 }] });
  dns.set(recipientMx, { A: ["127.0.0.1"] });
  const created = await call(mailUrl, "POST", "/v1/tenants", benchMailRootKey, { name: "Bench Shop" });
  await call(mailUrl, "PATCH", `/v1/tenants/${created.tenant.id}`, benchMailRootKey, { plan: "scale" });
  const key: string = created.api_key.token;
  const domain = await call(mailUrl, "POST", "/v1/domains", key, { name: senderDomain });
  const byName = new Map<string, { TXT: string[]; MX: { exchange: string; priority: number }[] }>();
  for (const record of domain.records as DomainRecord[]) {
    const entry = byName.get(record.name) ?? { TXT: [], MX: [] };
    if (record.type === "TXT") entry.TXT.push(record.value);
    else entry.MX.push({ exchange: record.value, priority: record.priority! });
    byName.set(record.name, entry);
  }
  for (const [name, records] of byName) dns.set(name, records);
  const verified = await call(mailUrl, "POST", `/v1/domains/${domain.id}/verify`, key);
  if (verified.status !== "verified") throw new Error(`${senderDomain} did not verify: ${JSON.stringify(verified)}`);
  return key;
}
