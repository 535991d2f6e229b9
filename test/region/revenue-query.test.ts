// Revenue measures over real HTTP: subscription events go in through /ingest/eu and POST
// /query answers MRR converted into the project's currency; an amount on a day before the
// rate table is 400 invalid_query naming the day; an unknown currency is 400 at validation.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp } from "../helpers/accounts.ts";
import { bearer, call } from "../helpers/client.ts";
import { nativeEvent, rfc3339, sendAccepted } from "../ingest/helpers.ts";
import { ReferenceRates, referenceRates, useReferenceRates } from "../../engine/revenue/rates.ts";

let service: TestService;
let token: string;
const today = new Date().toISOString().slice(0, 10);
const hourAgo = Date.now() - 3_600_000;

beforeAll(async () => {
  service = await startTestService();
  const owner = await signUp(service, "Revenue owner");
  const created = await createProject(owner, "Revenue", "eu", "UTC");
  const secret = (await createToken(owner, ["query:read"])).secret;
  token = await regionTokenFor(service, secret, created.project.id, ["query:read"]);
  await sendAccepted(service.url, created.public_keys[0].key, [
    nativeEvent({ event: "$subscription_started", distinct_id: "u1", timestamp: rfc3339(hourAgo), properties: { subscription_id: "s1", mrr: 1900, currency: "EUR" } }),
    nativeEvent({ event: "$subscription_started", distinct_id: "u2", timestamp: rfc3339(hourAgo), properties: { subscription_id: "s2", mrr: 1000, currency: "JPY" } }),
  ]);
});

afterAll(async () => {
  useReferenceRates(null);
  await service.close();
});

const mrrQuery = (currency: string) => ({
  query: { ir_version: 1, date_range: { from: today, to: today }, insight: { kind: "revenue", interval: "day", revenue_measure: "mrr", currency } },
});
const post = (body: unknown) => call(service.url, "POST", "/region/eu/query", { headers: bearer(token), body });

describe("POST /query, revenue measures", () => {
  test("MRR in the project's currency: the yen subscription converted at the latest rate", async () => {
    const rates = referenceRates();
    const day = Math.floor(hourAgo / 86_400_000);
    const yenInCents = Math.round(1000 * (1 / rates.perEuro("JPY", day)!) * 100);
    const reply = await post(mrrQuery("eur"));
    expect(reply.status).toBe(200);
    expect(reply.body.result).toEqual({
      kind: "revenue", interval: "day", time_zone: "UTC", measure: "mrr", currency: "EUR", buckets: [today],
      rows: [{ currency: "EUR", values: [1900 + yenInCents], total: 1900 + yenInCents }],
    });
  });

  test("a currency that is not ISO 4217, or that the table lacks, is 400 naming it", async () => {
    expect(await post(mrrQuery("ABC"))).toMatchObject({ status: 400, body: { error: { code: "invalid_query", message: '/insight/currency: "ABC" is not an ISO 4217 currency code' } } });
    const reply = await post(mrrQuery("ARS"));
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toStartWith("/insight/currency: the reference rate table (ECB) has no rates for ARS; it has AUD,");
  });

  test("an amount on a day before the rate table's first is 400 invalid_query naming the currency and the day", async () => {
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    useReferenceRates(ReferenceRates.parse(`Date,USD,JPY\n${tomorrow},1.1,160\n`, "later.csv"));
    const reply = await post({ ...mrrQuery("USD"), refresh: true });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: "invalid_query", message: `no ECB reference rate for USD on or before ${today} (the rate table later.csv starts ${tomorrow} for USD)` } });
  });
});
