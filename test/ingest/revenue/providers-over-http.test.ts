// POST /ingest/{region}/wh/{provider}/{token} over real HTTP for Stripe, the App Store and Google
// Play (RevenueCat's is webhook-route.test.ts), through one service that trusts an App Store root
// made here (APP_STORE_ROOT_CERTIFICATES): per provider a realistic notification stored with its
// revenue properties and read back through /sql, bad and expired signatures refused (401, an
// ingestion warning, nothing stored), a replayed notification stored once, an unknown type
// acknowledged and ignored. Play signs nothing: its path token and package name authenticate.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Stripe from "stripe";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp, v1 } from "../../helpers/accounts.ts";
import { bearer, call, type Reply } from "../../helpers/client.ts";
import { webhookMessageCharactersMax } from "../../../server/ingest/revenue/webhook-route.ts";
import { stripeSignatureToleranceMs } from "../../../server/ingest/revenue/providers/stripe-signature.ts";
import { appleLikeChain, certificate, party, pem, signJws, type Chain } from "./providers/app-store-signing.ts";
import { appleReceiptSigningOid, appleWwdrIntermediateOid } from "../../../server/ingest/revenue/providers/x509-chain.ts";

const now = Date.now();
const nowSeconds = Math.floor(now / 1000);
const dayMs = 86_400_000;
const yearMs = 365 * dayMs;
const chain = appleLikeChain(now);
const rootsDirectory = mkdtempSync(join(tmpdir(), "app-store-roots-http-"));
const stripeSecret = "whsec_http_7c1e9d3a5b2f4e6a8d0c";
const stripe = new Stripe("sk_test_not_used_for_network");

let service: TestService;
let projectId: string;
let pat: string;
const paths = { stripe: "", app_store: "", play_store: "" };

async function createIntegration(body: unknown): Promise<string> {
  const reply = await v1(service, pat, "POST", `/v1/projects/${projectId}/integrations`, body);
  expect(reply.status).toBe(201);
  return new URL(reply.body.webhook_url).pathname;
}

beforeAll(async () => {
  const rootsFile = join(rootsDirectory, "roots.pem");
  writeFileSync(rootsFile, pem(chain.rootDer));
  service = await startTestService({ APP_STORE_ROOT_CERTIFICATES: rootsFile });
  const owner = await signUp(service, "Owner");
  projectId = (await createProject(owner, "App", "eu", "UTC")).project.id;
  pat = (await createToken(owner, ["projects:write", "sql.raw", "query:read"])).secret;
  paths.stripe = await createIntegration({ provider: "stripe", secret: stripeSecret });
  paths.app_store = await createIntegration({ provider: "app_store", config: { bundle_id: "com.example.app" } });
  paths.play_store = await createIntegration({
    provider: "play_store",
    config: { package_name: "com.example.app", products: { pro_monthly: { amount_minor: 999, currency: "USD", period: "month" }, pro_yearly: { amount_minor: 9999, currency: "EUR", period: "year" } } },
  });
});
afterAll(async () => {
  await service.close();
  rmSync(rootsDirectory, { recursive: true, force: true });
});

async function deliver(path: string, body: string, headers: Record<string, string> = {}): Promise<Reply> {
  const response = await fetch(service.url + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text), headers: response.headers };
}
const outcome = (reply: Reply) => [reply.status, reply.body];
const received = (events: number, duplicates = 0) => [200, { received: true, events, duplicates, rejected: 0 }];
const unauthorized = (provider: string, reason: string) =>
  [401, { error: { code: "unauthorized", message: `the request is not signed by ${provider} for this integration (${reason})` } }];

async function sql(query: string): Promise<unknown[][]> {
  const token = await regionTokenFor(service, pat, projectId, ["sql.raw"]);
  const reply = await call(service.url, "POST", "/region/eu/sql", { headers: bearer(token), body: { sql: query } });
  expect(reply.status).toBe(200);
  return reply.body.rows;
}

/** The stored revenue rows of these provider event ids, by id then event name (ids are our own literals). */
const rowsOf = (ids: string[]) => sql(`SELECT event, distinct_id, p_amount, p_currency, p_mrr, p_subscription_id, p_product, p_period, p_provider, p_provider_event_id, lib_version, p_customer, epoch_ms(timestamp)
  FROM events WHERE p_provider_event_id IN (${ids.map((id) => `'${id}'`).join(", ")}) ORDER BY p_provider_event_id, event`);
const countOf = async (ids: string[]) => (await sql(`SELECT count(*), count(DISTINCT uuid) FROM events WHERE p_provider_event_id IN (${ids.map((id) => `'${id}'`).join(", ")})`))[0];

/** The webhook_unauthenticated warnings of `provider`: [message, count, example]. */
async function warnings(provider: string): Promise<unknown[][]> {
  const token = await regionTokenFor(service, pat, projectId, ["query:read"]);
  const reply = await call(service.url, "GET", "/region/eu/ingestion/warnings?reason=webhook_unauthenticated", { headers: bearer(token) });
  expect(reply.status).toBe(200);
  return reply.body.results.filter((entry: any) => entry.message.startsWith(`${provider} webhook`))
    .map((entry: any) => [entry.message, entry.count, JSON.parse(entry.example)]);
}
const warning = (provider: string, reason: string, message: string, count: number, bodyBytes: number) =>
  [`${provider} webhook not authenticated (${reason}): ${message}`.slice(0, webhookMessageCharactersMax), count, { provider, reason, body_bytes: bodyBytes }];

describe("Stripe over HTTP", () => {
  const signed = (payload: string, options: { secret?: string; timestamp?: number } = {}) =>
    stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: options.secret ?? stripeSecret, timestamp: options.timestamp ?? Math.floor(Date.now() / 1000) });
  const send = async (payload: string, options: { secret?: string; timestamp?: number } = {}) =>
    deliver(paths.stripe, payload, { "stripe-signature": await signed(payload, options) });
  const event = (id: string, type: string, object: object) => JSON.stringify({
    id, object: "event", api_version: "2026-10-28.endive", created: nowSeconds - 2, livemode: true, pending_webhooks: 1,
    request: { id: "req_http", idempotency_key: null }, type, data: { object },
  });
  const price = { id: "price_pro", object: "price", active: true, currency: "eur", product: "prod_pro", type: "recurring", unit_amount: 2400, billing_scheme: "per_unit", recurring: { interval: "year", interval_count: 1, usage_type: "licensed", meter: null } };
  const subscription = {
    id: "sub_http", object: "subscription", customer: "cus_Http", status: "active", currency: "eur", cancel_at_period_end: false, cancel_at: null, canceled_at: null,
    metadata: { distinct_id: "user-42" }, created: nowSeconds - 60, trial_start: null, trial_end: null,
    items: { object: "list", has_more: false, url: "/v1/subscription_items?subscription=sub_http", data: [{ id: "si_http", object: "subscription_item", price, quantity: 2, current_period_start: nowSeconds - 60, current_period_end: nowSeconds - 60 + 365 * 86_400, subscription: "sub_http" }] },
  };
  const charge = (fields: object = {}) => ({
    id: "ch_http", object: "charge", amount: 4800, amount_captured: 4800, amount_refunded: 0, captured: true, paid: true, status: "succeeded",
    currency: "eur", customer: "cus_Http", payment_intent: "pi_http", metadata: {}, refunded: false, created: nowSeconds - 3, livemode: true, ...fields,
  });

  test("customer.subscription.created and charge.succeeded are 200 and stored with their revenue properties", async () => {
    expect(outcome(await send(event("evt_http_sub", "customer.subscription.created", subscription)))).toEqual(received(1));
    expect(outcome(await send(event("evt_http_charge", "charge.succeeded", charge())))).toEqual(received(1));
    expect(await rowsOf(["evt_http_sub", "evt_http_charge"])).toEqual([
      ["$charge", "cus_Http", 4800, "EUR", null, null, null, null, "stripe", "evt_http_charge", "stripe", "cus_Http", (nowSeconds - 2) * 1000],
      // 2 seats of 24.00 EUR a year: 400 cents a month.
      ["$subscription_started", "user-42", null, "EUR", 400, "sub_http", "prod_pro", "year", "stripe", "evt_http_sub", "stripe", "cus_Http", (nowSeconds - 2) * 1000],
    ]);
    expect(await countOf(["evt_http_sub", "evt_http_charge"])).toEqual([2, 2]);
  });

  test("a wrong secret or a tampered body is 401, stored nowhere, and an ingestion warning", async () => {
    const payload = event("evt_http_forged", "charge.succeeded", charge({ id: "ch_forged" }));
    expect(outcome(await send(payload, { secret: "whsec_someone_else_0000" }))).toEqual(unauthorized("stripe", "bad_signature"));
    const header = await signed(payload);
    const tampered = payload.replace('"amount":4800', '"amount":9800');
    expect(tampered).not.toBe(payload);
    expect(outcome(await deliver(paths.stripe, tampered, { "stripe-signature": header }))).toEqual(unauthorized("stripe", "bad_signature"));
    expect(outcome(await deliver(paths.stripe, payload))).toEqual(unauthorized("stripe", "missing_signature"));
    expect(await countOf(["evt_http_forged"])).toEqual([0, 0]);
    const found = await warnings("stripe");
    // The example is the first delivery's (the wrong secret: the same length as the tampered body).
    expect(found).toContainEqual(warning("stripe", "bad_signature", "no v1 signature of the Stripe-Signature header matches the body", 2, payload.length));
    expect(found).toContainEqual(warning("stripe", "missing_signature", "the request has no Stripe-Signature header", 1, payload.length));
  });

  test(`a timestamp past the ${stripeSignatureToleranceMs / 1000} s tolerance is 401; just inside it is stored`, async () => {
    const toleranceSeconds = stripeSignatureToleranceMs / 1000;
    const late = event("evt_http_late", "charge.succeeded", charge({ id: "ch_late" }));
    const lateSeconds = Math.floor(Date.now() / 1000) - toleranceSeconds - 1;
    expect(outcome(await send(late, { timestamp: lateSeconds }))).toEqual(unauthorized("stripe", "expired_signature"));
    const future = event("evt_http_future", "charge.succeeded", charge({ id: "ch_future" }));
    expect(outcome(await send(future, { timestamp: Math.floor(Date.now() / 1000) + toleranceSeconds + 2 }))).toEqual(unauthorized("stripe", "expired_signature"));
    expect(await countOf(["evt_http_late", "evt_http_future"])).toEqual([0, 0]);
    // Seconds inside the tolerance: the request's own travel takes well under that.
    const timely = event("evt_http_timely", "charge.succeeded", charge({ id: "ch_timely" }));
    expect(outcome(await send(timely, { timestamp: Math.floor(Date.now() / 1000) - toleranceSeconds + 10 }))).toEqual(received(1));
    const found = (await warnings("stripe")).filter((entry) => (entry[2] as { reason: string }).reason === "expired_signature");
    expect(found).toHaveLength(2);
    expect(found.map((entry) => entry[0])).toEqual(expect.arrayContaining([
      // The skew counts the request's travel too: a second or more past the tolerance.
      expect.stringMatching(new RegExp(`^stripe webhook not authenticated \\(expired_signature\\): the Stripe-Signature timestamp is 3\\d\\d s old, beyond the ${toleranceSeconds} s tolerance$`)),
      expect.stringMatching(new RegExp(`^stripe webhook not authenticated \\(expired_signature\\): the Stripe-Signature timestamp is 3\\d\\d s in the future, beyond the ${toleranceSeconds} s tolerance$`)),
    ]));
  });

  test("a replayed event is 200 each time and stored once, also after a restart", async () => {
    const payload = event("evt_http_replay", "charge.succeeded", charge({ id: "ch_replay" }));
    expect(outcome(await send(payload))).toEqual(received(1));
    expect(outcome(await send(payload))).toEqual(received(0, 1));
    service = await service.restart();
    expect(outcome(await send(payload))).toEqual(received(0, 1));
    expect(await rowsOf(["evt_http_replay"])).toEqual([["$charge", "cus_Http", 4800, "EUR", null, null, null, null, "stripe", "evt_http_replay", "stripe", "cus_Http", (nowSeconds - 2) * 1000]]);
  });

  test("an event type that is not mapped is 200 and stores nothing", async () => {
    const invoice = { id: "in_http", object: "invoice", customer: "cus_Http", amount_paid: 4800, currency: "eur", status: "paid" };
    expect(outcome(await send(event("evt_http_invoice", "invoice.paid", invoice)))).toEqual(received(0));
    expect(outcome(await send(event("evt_http_unknown", "some.future.event", { id: "x_1", object: "thing" })))).toEqual(received(0));
    expect(await countOf(["evt_http_invoice", "evt_http_unknown"])).toEqual([0, 0]);
  });
});

describe("App Store over HTTP", () => {
  const signedAt = now - 500;
  const transaction = (fields: object = {}) => ({
    transactionId: "2000000912340001", originalTransactionId: "2000000900000077", webOrderLineItemId: "2000000011110001",
    bundleId: "com.example.app", productId: "com.example.pro.monthly", subscriptionGroupIdentifier: "21345678",
    purchaseDate: now - 60_000, originalPurchaseDate: now - 60_000, expiresDate: now - 60_000 + 30 * dayMs, quantity: 1,
    type: "Auto-Renewable Subscription", inAppOwnershipType: "PURCHASED", signedDate: signedAt, environment: "Production",
    transactionReason: "PURCHASE", storefront: "USA", storefrontId: "143441", price: 9990, currency: "USD", ...fields,
  });
  const notification = (uuid: string, type: string, subtype: string | null, fields: object = {}, signing: Chain = chain) => ({
    notificationType: type, ...(subtype === null ? {} : { subtype }), notificationUUID: uuid, version: "2.0", signedDate: signedAt,
    data: { appAppleId: 1234567890, bundleId: "com.example.app", bundleVersion: "42", environment: "Production", status: 1, signedTransactionInfo: signJws(transaction(fields), signing) },
  });
  const bodyOf = (signedPayload: string) => JSON.stringify({ signedPayload });
  const send = (payload: object, signing: Chain = chain) => deliver(paths.app_store, bodyOf(signJws(payload, signing)));
  // Under the trusted root: another intermediate, and a leaf valid from a year ago to `notAfter`.
  const intermediate = party("Test Worldwide Developer Relations CA");
  const leaf = party("Test App Store Receipt Signing");
  const intermediateDer = certificate({ subject: intermediate, issuer: chain.root, serial: 12, notBefore: new Date(now - yearMs), notAfter: new Date(now + yearMs), ca: true, markers: [appleWwdrIntermediateOid] });
  const leafUntil = (notAfter: number): Chain => {
    const leafDer = certificate({ subject: leaf, issuer: intermediate, serial: 13, notBefore: new Date(now - yearMs), notAfter: new Date(notAfter), ca: false, markers: [appleReceiptSigningOid] });
    return { root: chain.root, leaf, rootDer: chain.rootDer, x5c: [leafDer, intermediateDer, chain.rootDer].map((der) => der.toString("base64")) };
  };

  test("SUBSCRIBED/INITIAL_BUY and DID_RENEW are 200 and stored with their revenue properties", async () => {
    expect(outcome(await send(notification("as-http-buy", "SUBSCRIBED", "INITIAL_BUY")))).toEqual(received(2));
    const renewal = { transactionId: "2000000912340002", purchaseDate: now - 30_000, expiresDate: now - 30_000 + 30 * dayMs, transactionReason: "RENEWAL" };
    expect(outcome(await send(notification("as-http-renew", "DID_RENEW", null, renewal)))).toEqual(received(2));
    expect(await rowsOf(["as-http-buy", "as-http-renew"])).toEqual([
      ["$charge", "2000000900000077", 999, "USD", null, "2000000900000077", "com.example.pro.monthly", null, "app_store", "as-http-buy", "app_store", "2000000900000077", signedAt],
      ["$subscription_started", "2000000900000077", null, "USD", 999, "2000000900000077", "com.example.pro.monthly", "month", "app_store", "as-http-buy", "app_store", "2000000900000077", signedAt],
      ["$charge", "2000000900000077", 999, "USD", null, "2000000900000077", "com.example.pro.monthly", null, "app_store", "as-http-renew", "app_store", "2000000900000077", signedAt],
      ["$subscription_renewed", "2000000900000077", null, "USD", 999, "2000000900000077", "com.example.pro.monthly", "month", "app_store", "as-http-renew", "app_store", "2000000900000077", signedAt],
    ]);
    expect(await countOf(["as-http-buy", "as-http-renew"])).toEqual([4, 4]);
  });

  test("a chain under an untrusted root or a tampered payload is 401, stored nowhere, and an ingestion warning", async () => {
    const stranger = appleLikeChain(now);
    const untrustedBody = bodyOf(signJws(notification("as-http-untrusted", "SUBSCRIBED", "INITIAL_BUY", {}, stranger), stranger));
    expect(outcome(await deliver(paths.app_store, untrustedBody))).toEqual(unauthorized("app_store", "untrusted_certificate"));

    const [header, , signature] = signJws(notification("as-http-tampered", "SUBSCRIBED", "INITIAL_BUY"), chain).split(".");
    const richer = notification("as-http-tampered", "SUBSCRIBED", "INITIAL_BUY", { price: 999_990 });
    const tamperedBody = bodyOf(`${header}.${Buffer.from(JSON.stringify(richer)).toString("base64url")}.${signature}`);
    expect(outcome(await deliver(paths.app_store, tamperedBody))).toEqual(unauthorized("app_store", "bad_signature"));

    // A genuine notification carrying a transaction signed under another root, or for another app.
    const innerBody = bodyOf(signJws(notification("as-http-inner", "SUBSCRIBED", "INITIAL_BUY", {}, stranger), chain));
    expect(outcome(await deliver(paths.app_store, innerBody))).toEqual(unauthorized("app_store", "untrusted_certificate"));
    const otherAppBody = bodyOf(signJws(notification("as-http-other-app", "SUBSCRIBED", "INITIAL_BUY", { bundleId: "com.other.app" }), chain));
    expect(outcome(await deliver(paths.app_store, otherAppBody))).toEqual(unauthorized("app_store", "bad_signature"));

    expect(await countOf(["as-http-untrusted", "as-http-tampered", "as-http-inner", "as-http-other-app"])).toEqual([0, 0]);
    const fingerprint = new X509Certificate(stranger.rootDer).fingerprint256;
    const found = await warnings("app_store");
    expect(found).toContainEqual(warning("app_store", "untrusted_certificate", `signedTransactionInfo: the chain's root (SHA-256 ${fingerprint}) is not a trusted App Store root`, 1, innerBody.length));
    expect(found).toContainEqual(warning("app_store", "bad_signature", "the transaction is for another app", 1, otherAppBody.length));
    expect(found).toContainEqual(warning("app_store", "untrusted_certificate", `signedPayload: the chain's root (SHA-256 ${fingerprint}) is not a trusted App Store root`, 1, untrustedBody.length));
    expect(found).toContainEqual(warning("app_store", "bad_signature", "signedPayload: the signature does not match the leaf certificate's key", 1, tamperedBody.length));
  });

  test("a leaf certificate expired at the notification's signedDate is 401 expired_signature", async () => {
    // Expired a second before signedDate (certificate times have whole seconds).
    const expired = leafUntil(signedAt - 1000);
    const body = bodyOf(signJws(notification("as-http-expired", "SUBSCRIBED", "INITIAL_BUY", {}, expired), expired));
    expect(outcome(await deliver(paths.app_store, body))).toEqual(unauthorized("app_store", "expired_signature"));
    expect(await countOf(["as-http-expired"])).toEqual([0, 0]);
    const expiredLeaf = new X509Certificate(Buffer.from(expired.x5c[0]!, "base64"));
    const validity = `valid ${new Date(expiredLeaf.validFrom).toISOString()} to ${new Date(expiredLeaf.validTo).toISOString()}`;
    expect(await warnings("app_store")).toContainEqual(warning("app_store", "expired_signature",
      `signedPayload: the leaf certificate is not valid at the signing time ${new Date(signedAt).toISOString()} (${validity})`, 1, body.length));
    // The same leaf still valid at signedDate (its last second): accepted.
    const lastSecond = leafUntil(Math.ceil(signedAt / 1000) * 1000);
    expect(outcome(await send(notification("as-http-edge", "SUBSCRIBED", "INITIAL_BUY", { transactionId: "2000000912340009" }, lastSecond), lastSecond))).toEqual(received(2));
  });

  test("a late retry, signed days ago by a leaf that has expired since, is accepted (validity is at signedDate)", async () => {
    const signedDaysAgo = now - 3 * dayMs;
    const since = leafUntil(now - dayMs);
    const retried = { ...notification("as-http-late", "DID_RENEW", null, { transactionId: "2000000912340010", signedDate: signedDaysAgo }, since), signedDate: signedDaysAgo };
    expect(outcome(await send(retried, since))).toEqual(received(2));
    expect((await rowsOf(["as-http-late"])).map((row) => [row[0], row.at(-1)])).toEqual([["$charge", signedDaysAgo], ["$subscription_renewed", signedDaysAgo]]);
  });

  test("a replayed notification is 200 each time and stored once", async () => {
    const body = bodyOf(signJws(notification("as-http-replay", "DID_RENEW", null, { transactionId: "2000000912340003" }), chain));
    expect(outcome(await deliver(paths.app_store, body))).toEqual(received(2));
    expect(outcome(await deliver(paths.app_store, body))).toEqual(received(0, 2));
    expect(await countOf(["as-http-replay"])).toEqual([2, 2]);
  });

  test("a notification type that is not mapped is 200 and stores nothing", async () => {
    expect(outcome(await send(notification("as-http-test", "TEST", null)))).toEqual(received(0));
    expect(outcome(await send(notification("as-http-consumption", "CONSUMPTION_REQUEST", null)))).toEqual(received(0));
    expect(await countOf(["as-http-test", "as-http-consumption"])).toEqual([0, 0]);
  });
});

describe("Google Play over HTTP", () => {
  const purchaseToken = "opaque-http-token.AO-J1OyHttpExampleExample_abc123";
  const person = `play:${createHash("sha256").update(purchaseToken).digest("hex").slice(0, 32)}`;
  const push = (messageId: string, inner: object, packageName = "com.example.app") => JSON.stringify({
    message: {
      attributes: {}, messageId, message_id: messageId, publishTime: new Date(now).toISOString(), publish_time: new Date(now).toISOString(),
      data: Buffer.from(JSON.stringify({ version: "1.0", packageName, eventTimeMillis: String(now - 1000), ...inner })).toString("base64"),
    },
    subscription: "projects/example/subscriptions/play-rtdn",
  });
  const subscriptionNotification = (notificationType: number, subscriptionId = "pro_monthly") =>
    ({ subscriptionNotification: { version: "1.0", notificationType, purchaseToken, subscriptionId } });

  test("SUBSCRIPTION_PURCHASED is 200 and stored with the prices of config.products", async () => {
    expect(outcome(await deliver(paths.play_store, push("play-http-1", subscriptionNotification(4))))).toEqual(received(2));
    expect(outcome(await deliver(paths.play_store, push("play-http-2", subscriptionNotification(2, "pro_yearly"))))).toEqual(received(2));
    expect(await rowsOf(["play-http-1", "play-http-2"])).toEqual([
      ["$charge", person, 999, "USD", null, null, "pro_monthly", null, "play_store", "play-http-1", "play_store", person, now - 1000],
      ["$subscription_started", person, null, "USD", 999, person, "pro_monthly", "month", "play_store", "play-http-1", "play_store", person, now - 1000],
      ["$charge", person, 9999, "EUR", null, null, "pro_yearly", null, "play_store", "play-http-2", "play_store", person, now - 1000],
      // 99.99 EUR a year: 833.25 cents a month, rounded.
      ["$subscription_renewed", person, null, "EUR", 833, person, "pro_yearly", "year", "play_store", "play-http-2", "play_store", person, now - 1000],
    ]);
    expect(await countOf(["play-http-1", "play-http-2"])).toEqual([4, 4]);
  });

  test("a product missing from config.products is stored without money (Play notifications carry no price)", async () => {
    const reply = await deliver(paths.play_store, push("play-http-unlisted", subscriptionNotification(4, "unlisted")));
    expect(outcome(reply)).toEqual(received(2));
    expect(await rowsOf(["play-http-unlisted"])).toEqual([
      ["$charge", person, null, null, null, null, "unlisted", null, "play_store", "play-http-unlisted", "play_store", person, now - 1000],
      ["$subscription_started", person, null, null, null, person, "unlisted", null, "play_store", "play-http-unlisted", "play_store", person, now - 1000],
    ]);
  });

  test("a wrong token in the path is 404; another app's package name is 401 and an ingestion warning", async () => {
    const body = push("play-http-forged", subscriptionNotification(4));
    const wrongToken = paths.play_store.replace(/[^/]+$/, "not-the-token");
    expect(outcome(await deliver(wrongToken, body))).toEqual([404, { error: { code: "not_found", message: "no webhook at this URL" } }]);
    const otherApp = push("play-http-other-app", subscriptionNotification(4), "com.other.app");
    expect(outcome(await deliver(paths.play_store, otherApp))).toEqual(unauthorized("play_store", "bad_signature"));
    expect(await countOf(["play-http-forged", "play-http-other-app"])).toEqual([0, 0]);
    expect(await warnings("play_store")).toEqual([
      warning("play_store", "bad_signature", "the notification is for another app (its packageName is not the integration's package_name)", 1, otherApp.length),
    ]);
  });

  test("a replayed message is 200 each time and stored once", async () => {
    const body = push("play-http-replay", subscriptionNotification(3));
    expect(outcome(await deliver(paths.play_store, body))).toEqual(received(1));
    expect(outcome(await deliver(paths.play_store, body))).toEqual(received(0, 1));
    expect(await rowsOf(["play-http-replay"])).toEqual([["$subscription_cancelled", person, null, "USD", 999, person, "pro_monthly", "month", "play_store", "play-http-replay", "play_store", person, now - 1000]]);
  });

  test("a notification type that is not mapped, and a test notification, are 200 and store nothing", async () => {
    expect(outcome(await deliver(paths.play_store, push("play-http-unknown", subscriptionNotification(99))))).toEqual(received(0));
    expect(outcome(await deliver(paths.play_store, push("play-http-test", { testNotification: { version: "1.0" } })))).toEqual(received(0));
    expect(outcome(await deliver(paths.play_store, push("play-http-hold", subscriptionNotification(5))))).toEqual(received(0));
    expect(await countOf(["play-http-unknown", "play-http-test", "play-http-hold"])).toEqual([0, 0]);
  });
});
