import { afterAll, describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RevenueEventName } from "../../../../engine/revenue-events.ts";
import { createAppStoreModule } from "../../../../server/ingest/revenue/providers/app-store.ts";
import { AppStoreRootsError, bundledAppleRootPath, loadAppStoreRoots } from "../../../../server/ingest/revenue/providers/app-store-roots.ts";
import { verifyAppleChain } from "../../../../server/ingest/revenue/providers/x509-chain.ts";
import { WebhookAuthError, WebhookPayloadError, type RevenueEventDraft, type WebhookIntegration, type WebhookOutcome } from "../../../../server/ingest/revenue/provider.ts";
import { appleLikeChain, party, signJws, type Chain } from "./app-store-signing.ts";
import { appleRealIntermediate, appleRealLeaf } from "./apple-real-chain.ts";

const at = Date.UTC(2026, 10, 28, 3, 0, 0);
const dayMs = 86_400_000;
const chain = appleLikeChain(at);
const appStore = createAppStoreModule([new X509Certificate(chain.rootDer)]);
const integration: WebhookIntegration = { id: "int_as", projectId: "proj_1", provider: "app_store", status: "active", secret: null, config: { bundle_id: "com.example.app" } };
const directory = mkdtempSync(join(tmpdir(), "app-store-roots-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const transaction = (fields: object = {}) => ({
  transactionId: "2000000912345678", originalTransactionId: "2000000900000001", webOrderLineItemId: "2000000011112222",
  bundleId: "com.example.app", productId: "com.example.pro.monthly", subscriptionGroupIdentifier: "21345678",
  purchaseDate: at - 60_000, originalPurchaseDate: at - 60_000, expiresDate: at - 60_000 + 30 * dayMs, quantity: 1,
  type: "Auto-Renewable Subscription", inAppOwnershipType: "PURCHASED", signedDate: at - 1000, environment: "Production",
  transactionReason: "PURCHASE", storefront: "USA", storefrontId: "143441", price: 9990, currency: "USD", appTransactionId: "704289572311946432",
  ...fields,
});

const renewal = (fields: object = {}) => ({
  originalTransactionId: "2000000900000001", autoRenewProductId: "com.example.pro.monthly", productId: "com.example.pro.monthly",
  autoRenewStatus: 1, signedDate: at - 1000, environment: "Production", recentSubscriptionStartDate: at - 60_000,
  renewalDate: at - 60_000 + 30 * dayMs, currency: "USD", renewalPrice: 9990, ...fields,
});

interface NotificationOptions {
  subtype?: string;
  transaction?: object | null;
  renewal?: object;
  bundleId?: string;
  environment?: string;
  uuid?: string;
  signingChain?: Chain;
}

function notification(type: string, options: NotificationOptions = {}): object {
  const signing = options.signingChain ?? chain;
  const data: Record<string, unknown> = { appAppleId: 1234567890, bundleId: options.bundleId ?? "com.example.app", bundleVersion: "42", environment: options.environment ?? "Production", status: 1 };
  if (options.transaction !== null) data.signedTransactionInfo = signJws(transaction(options.transaction ?? {}), signing);
  if (options.renewal !== undefined) data.signedRenewalInfo = signJws(renewal(options.renewal), signing);
  return {
    notificationType: type, ...(options.subtype === undefined ? {} : { subtype: options.subtype }),
    notificationUUID: options.uuid ?? "3f1c9a52-5e0e-4b6c-9e51-2c1b8d0a7e11", data, version: "2.0", signedDate: at - 500,
  };
}

const body = (signedPayload: string) => new TextEncoder().encode(JSON.stringify({ signedPayload }));
const deliver = (signedPayload: string, module = appStore, config: Record<string, unknown> = integration.config) =>
  module.handle({ ...integration, config }, { headers: new Headers({ "content-type": "application/json" }), body: body(signedPayload), receivedAt: at });
const send = (type: string, options: NotificationOptions = {}, config?: Record<string, unknown>) =>
  deliver(signJws(notification(type, options), options.signingChain ?? chain), appStore, config);

async function refusal(promise: Promise<unknown>): Promise<[string, string]> {
  const error = await promise.then(() => null, (thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(WebhookAuthError);
  return [(error as WebhookAuthError).reason, (error as WebhookAuthError).message];
}

const eventsOf = (outcome: WebhookOutcome) => (outcome.kind === "events" ? outcome.events : null);
const draft = (i: number, event: RevenueEventName, properties: RevenueEventDraft["properties"], uuid = "3f1c9a52-5e0e-4b6c-9e51-2c1b8d0a7e11"): RevenueEventDraft => ({
  event, distinctId: "2000000900000001", timestamp: at - 500, uuidSeed: `${uuid}:${i}`,
  properties: { currency: "USD", product: "com.example.pro.monthly", customer: "2000000900000001", subscription_id: "2000000900000001", ...properties, provider: "app_store", provider_event_id: uuid },
});

describe("App Store trusted roots", () => {
  test("the bundled root is Apple Root CA - G3 with Apple's published fingerprint", () => {
    const [root, ...others] = loadAppStoreRoots(undefined);
    expect(others).toEqual([]);
    expect([root!.subject, root!.fingerprint256]).toEqual([
      "CN=Apple Root CA - G3\nOU=Apple Certification Authority\nO=Apple Inc.\nC=US",
      "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79",
    ]);
    expect(loadAppStoreRoots("  ").map((certificate) => certificate.fingerprint256)).toEqual([root!.fingerprint256]);
  });

  test("Apple's real signing chain ends at the bundled root and carries the extensions checked", () => {
    const roots = loadAppStoreRoots(undefined);
    const rootBase64 = roots[0]!.raw.toString("base64");
    const key = verifyAppleChain([appleRealLeaf, appleRealIntermediate, rootBase64], roots, Date.UTC(2026, 0, 1));
    expect(key.asymmetricKeyType).toBe("ec");
    // The same chain after the leaf's expiry (2027-10-13) is refused.
    expect(() => verifyAppleChain([appleRealLeaf, appleRealIntermediate, rootBase64], roots, Date.UTC(2027, 9, 14))).toThrow(WebhookAuthError);
  });

  test("APP_STORE_ROOT_CERTIFICATES names PEM files that replace the bundled root", () => {
    const other = appleLikeChain(at);
    const first = join(directory, "first.pem");
    const second = join(directory, "second.pem");
    writeFileSync(first, `${new X509Certificate(chain.rootDer).toString()}\n${new X509Certificate(other.rootDer).toString()}`);
    writeFileSync(second, new X509Certificate(chain.rootDer).toString());
    expect(loadAppStoreRoots(`${first}, ${second}`).length).toBe(3);
    expect(loadAppStoreRoots(first).map((root) => root.fingerprint256)).not.toContain(loadAppStoreRoots(undefined)[0]!.fingerprint256);
    expect(() => loadAppStoreRoots(join(directory, "missing.pem"))).toThrow(AppStoreRootsError);
    writeFileSync(join(directory, "empty.pem"), "not a certificate");
    expect(() => loadAppStoreRoots(join(directory, "empty.pem"))).toThrow(`${join(directory, "empty.pem")} holds no PEM certificate`);
    expect(bundledAppleRootPath.endsWith("apple-root-ca-g3.pem")).toBe(true);
  });
});

describe("App Store signatures", () => {
  test("a notification signed through a trusted chain is accepted", async () => {
    expect(eventsOf(await send("DID_RENEW"))?.length).toBe(2);
  });

  test("a tampered payload is bad_signature", async () => {
    const [header, payload, signature] = signJws(notification("DID_RENEW"), chain).split(".");
    const changed = JSON.parse(Buffer.from(payload!, "base64url").toString());
    changed.notificationType = "REFUND";
    const tampered = `${header}.${Buffer.from(JSON.stringify(changed)).toString("base64url")}.${signature}`;
    expect(await refusal(deliver(tampered))).toEqual(["bad_signature", "signedPayload: the signature does not match the leaf certificate's key"]);
  });

  test("a payload signed by a key that is not the leaf's is bad_signature", async () => {
    expect((await refusal(deliver(signJws(notification("DID_RENEW"), chain, party("Mallory")))))[0]).toBe("bad_signature");
  });

  test("a chain ending at a root that is not configured is untrusted_certificate (so is ours under Apple's real root alone)", async () => {
    const stranger = appleLikeChain(at);
    const [reason, message] = await refusal(send("DID_RENEW", { signingChain: stranger }));
    expect([reason, message.startsWith("signedPayload: the chain's root (SHA-256 ")]).toEqual(["untrusted_certificate", true]);
    const appleOnly = createAppStoreModule(loadAppStoreRoots(undefined));
    expect((await refusal(deliver(signJws(notification("DID_RENEW"), chain), appleOnly)))[0]).toBe("untrusted_certificate");
  });

  test("a trusted root with an intermediate it did not sign is untrusted_certificate", async () => {
    const stranger = appleLikeChain(at);
    const mixed: Chain = { ...stranger, x5c: [stranger.x5c[0]!, stranger.x5c[1]!, chain.x5c[2]!] };
    expect(await refusal(deliver(signJws(notification("DID_RENEW"), mixed)))).toEqual(["untrusted_certificate", "signedPayload: the intermediate certificate is not signed by the root"]);
  });

  test("a chain without Apple's extensions, or of the wrong length, is untrusted_certificate", async () => {
    const plain = appleLikeChain(at, { markers: false });
    const module = createAppStoreModule([new X509Certificate(plain.rootDer)]);
    expect(await refusal(deliver(signJws(notification("DID_RENEW"), plain), module))).toEqual([
      "untrusted_certificate", "signedPayload: the intermediate certificate lacks Apple's extension 1.2.840.113635.100.6.2.1",
    ]);
    const short: Chain = { ...chain, x5c: chain.x5c.slice(0, 2) };
    expect(await refusal(deliver(signJws(notification("DID_RENEW"), short)))).toEqual(["untrusted_certificate", "signedPayload: x5c must hold 3 certificates (leaf, intermediate, root)"]);
    const garbage: Chain = { ...chain, x5c: ["bm90IGEgY2VydA==", chain.x5c[1]!, chain.x5c[2]!] };
    expect(await refusal(deliver(signJws(notification("DID_RENEW"), garbage)))).toEqual(["untrusted_certificate", "signedPayload: the leaf certificate of x5c is not a certificate"]);
  });

  test("a leaf expired, or not yet valid, at the signing time is expired_signature", async () => {
    const expired = appleLikeChain(at, { leafValidity: [at - 400 * dayMs, at - 1000] });
    const module = createAppStoreModule([new X509Certificate(expired.rootDer)]);
    const [reason, message] = await refusal(deliver(signJws(notification("DID_RENEW", { signingChain: expired }), expired), module));
    expect([reason, message.startsWith("signedPayload: the leaf certificate is not valid at the signing time 2026-11-28T02:59:59.500Z")]).toEqual(["expired_signature", true]);
    const early = appleLikeChain(at, { leafValidity: [at + 1000, at + 400 * dayMs] });
    const earlyModule = createAppStoreModule([new X509Certificate(early.rootDer)]);
    expect((await refusal(deliver(signJws(notification("DID_RENEW", { signingChain: early }), early), earlyModule)))[0]).toBe("expired_signature");
  });

  test("a nested transaction signed outside the trusted chain is refused too", async () => {
    const stranger = appleLikeChain(at);
    const payload = notification("DID_RENEW") as { data: Record<string, unknown> };
    payload.data.signedTransactionInfo = signJws(transaction(), stranger);
    expect((await refusal(deliver(signJws(payload, chain))))[0]).toBe("untrusted_certificate");
  });

  test("no signedPayload, a body that is not JSON, or a JWS that is not ES256 is refused", async () => {
    const raw = (text: string) => appStore.handle(integration, { headers: new Headers(), body: new TextEncoder().encode(text), receivedAt: at });
    expect(await refusal(raw("{}"))).toEqual(["missing_signature", "the body is not an App Store notification {signedPayload}"]);
    expect((await refusal(raw("not json")))[0]).toBe("missing_signature");
    expect(await refusal(deliver("a.b"))).toEqual(["bad_signature", "signedPayload is not a compact JWS"]);
    const none = `${Buffer.from(JSON.stringify({ alg: "none", x5c: chain.x5c })).toString("base64url")}.${Buffer.from(JSON.stringify(notification("DID_RENEW"))).toString("base64url")}.AA`;
    expect(await refusal(deliver(none))).toEqual(["bad_signature", "signedPayload is not signed with ES256"]);
  });

  test("a notification for another app is refused as bad_signature; so is an integration without bundle_id", async () => {
    expect(await refusal(send("DID_RENEW", { bundleId: "com.other.app" }))).toEqual(["bad_signature", "the notification is for another app (its bundleId is not the integration's bundle_id)"]);
    expect(await refusal(send("DID_RENEW", { transaction: { bundleId: "com.other.app" } }))).toEqual(["bad_signature", "the transaction is for another app"]);
    expect(await refusal(send("DID_RENEW", {}, {}))).toEqual(["bad_signature", "the integration has no bundle_id to match notifications with"]);
  });

  test("a replayed notification gives the same drafts: redelivery deduplicates by notificationUUID", async () => {
    const signed = signJws(notification("DID_RENEW"), chain);
    const first = await deliver(signed);
    expect(await deliver(signed)).toEqual(first);
    expect(eventsOf(first)?.map((event) => event.uuidSeed)).toEqual(["3f1c9a52-5e0e-4b6c-9e51-2c1b8d0a7e11:0", "3f1c9a52-5e0e-4b6c-9e51-2c1b8d0a7e11:1"]);
  });

  test("a verified notification missing its fields is WebhookPayloadError", async () => {
    const payload = notification("DID_RENEW") as Record<string, unknown>;
    delete payload.notificationUUID;
    expect(await deliver(signJws(payload, chain)).catch((error: unknown) => error)).toBeInstanceOf(WebhookPayloadError);
    expect(await send("DID_RENEW", { transaction: null }).catch((error: unknown) => error)).toBeInstanceOf(WebhookPayloadError);
    expect(await send("DID_RENEW", { transaction: { originalTransactionId: undefined } }).catch((error: unknown) => error)).toBeInstanceOf(WebhookPayloadError);
  });
});

describe("App Store notifications as revenue events", () => {
  test("SUBSCRIBED/INITIAL_BUY is a $charge of the price (milliunits to cents) and $subscription_started", async () => {
    expect(await send("SUBSCRIBED", { subtype: "INITIAL_BUY" })).toEqual({
      kind: "events", notificationId: "3f1c9a52-5e0e-4b6c-9e51-2c1b8d0a7e11", notificationType: "SUBSCRIBED/INITIAL_BUY",
      events: [draft(0, "$charge", { amount: 999 }), draft(1, "$subscription_started", { period: "month", mrr: 999 })],
    });
  });

  test("SUBSCRIBED with a free trial offer is $trial_started with MRR 0 and no charge", async () => {
    const trial = await send("SUBSCRIBED", { subtype: "INITIAL_BUY", transaction: { offerType: 1, offerDiscountType: "FREE_TRIAL", price: 0, expiresDate: at - 60_000 + 7 * dayMs } });
    expect(eventsOf(trial)).toEqual([draft(0, "$trial_started", { period: "week", mrr: 0 })]);
  });

  test("SUBSCRIBED/RESUBSCRIBE starts again; DID_RENEW is a $charge and $subscription_renewed", async () => {
    expect(eventsOf(await send("SUBSCRIBED", { subtype: "RESUBSCRIBE" }))?.map((e) => e.event)).toEqual(["$charge", "$subscription_started"]);
    expect(eventsOf(await send("DID_RENEW", { subtype: "BILLING_RECOVERY" }))).toEqual([draft(0, "$charge", { amount: 999 }), draft(1, "$subscription_renewed", { period: "month", mrr: 999 })]);
  });

  test("a yearly price is MRR / 12; a zero-decimal currency keeps whole units", async () => {
    const yearly = await send("DID_RENEW", { transaction: { price: 99990, expiresDate: at - 60_000 + 365 * dayMs, productId: "com.example.pro.yearly" } });
    expect(eventsOf(yearly)?.map((e) => [e.event, e.properties.amount ?? null, e.properties.mrr ?? null, e.properties.period ?? null])).toEqual([
      ["$charge", 9999, null, null], ["$subscription_renewed", null, 833, "year"],
    ]);
    const yen = await send("DID_RENEW", { transaction: { price: 1200000, currency: "JPY", expiresDate: at - 60_000 + 91 * dayMs } });
    expect(eventsOf(yen)?.map((e) => [e.properties.amount ?? null, e.properties.mrr ?? null, e.properties.currency])).toEqual([[1200, null, "JPY"], [null, 400, "JPY"]]);
  });

  test("DID_CHANGE_RENEWAL_PREF: UPGRADE charges the new product now, DOWNGRADE takes the renewal's price, none undoes a downgrade", async () => {
    const up = await send("DID_CHANGE_RENEWAL_PREF", { subtype: "UPGRADE", transaction: { productId: "com.example.max.monthly", price: 19990 } });
    expect(eventsOf(up)?.map((e) => [e.event, e.properties.product, e.properties.amount ?? null, e.properties.mrr ?? null])).toEqual([
      ["$charge", "com.example.max.monthly", 1999, null], ["$subscription_upgraded", "com.example.max.monthly", null, 1999],
    ]);
    const down = await send("DID_CHANGE_RENEWAL_PREF", { subtype: "DOWNGRADE", renewal: { autoRenewProductId: "com.example.basic.monthly", renewalPrice: 4990 } });
    expect(eventsOf(down)).toEqual([draft(0, "$subscription_downgraded", { product: "com.example.basic.monthly", period: "month", mrr: 499 })]);
    expect(eventsOf(await send("DID_CHANGE_RENEWAL_PREF", { renewal: {} }))).toEqual([]);
  });

  test("auto-renewal turned off is $subscription_cancelled still counting; turned back on is nothing", async () => {
    expect(eventsOf(await send("DID_CHANGE_RENEWAL_STATUS", { subtype: "AUTO_RENEW_DISABLED", renewal: { autoRenewStatus: 0 } }))).toEqual([
      draft(0, "$subscription_cancelled", { period: "month", mrr: 999 }),
    ]);
    expect(eventsOf(await send("DID_CHANGE_RENEWAL_STATUS", { subtype: "AUTO_RENEW_ENABLED" }))).toEqual([]);
  });

  test("EXPIRED is $subscription_expired with MRR 0; DID_FAIL_TO_RENEW is nothing yet", async () => {
    expect(eventsOf(await send("EXPIRED", { subtype: "VOLUNTARY" }))).toEqual([draft(0, "$subscription_expired", { period: "month", mrr: 0 })]);
    expect(eventsOf(await send("DID_FAIL_TO_RENEW", { subtype: "GRACE_PERIOD" }))).toEqual([]);
  });

  test("REFUND is a $refund of the transaction's price; REFUND_REVERSED a $charge again", async () => {
    expect(eventsOf(await send("REFUND", { transaction: { revocationDate: at - 2000, revocationReason: 0 } }))).toEqual([draft(0, "$refund", { amount: 999 })]);
    expect(eventsOf(await send("REFUND_REVERSED"))?.map((e) => [e.event, e.properties.amount])).toEqual([["$charge", 999]]);
  });

  test("ONE_TIME_CHARGE is a $charge without a subscription", async () => {
    const coins = await send("ONE_TIME_CHARGE", { transaction: { type: "Consumable", productId: "com.example.coins.100", price: 1990, expiresDate: undefined } });
    expect(eventsOf(coins)).toEqual([{
      event: "$charge", distinctId: "2000000900000001", timestamp: at - 500, uuidSeed: "3f1c9a52-5e0e-4b6c-9e51-2c1b8d0a7e11:0",
      properties: { currency: "USD", product: "com.example.coins.100", customer: "2000000900000001", amount: 199, provider: "app_store", provider_event_id: "3f1c9a52-5e0e-4b6c-9e51-2c1b8d0a7e11" },
    }]);
  });

  test("hostile product ids and tokens pass through as plain data; an overlong appAccountToken falls back to originalTransactionId", async () => {
    const hostile = "<img src=x onerror=alert(1)>'; DROP TABLE events; --";
    const outcome = await send("ONE_TIME_CHARGE", { transaction: { type: "Consumable", productId: hostile, appAccountToken: "x".repeat(201) } });
    expect(eventsOf(outcome)?.map((e) => [e.distinctId, e.properties.product])).toEqual([["2000000900000001", hostile]]);
  });

  test("appAccountToken is the person when the app set one", async () => {
    const token = "7e3fb20b-4cdb-47cc-936d-99d65f608138";
    const outcome = await send("DID_RENEW", { transaction: { appAccountToken: token } });
    expect(eventsOf(outcome)?.map((e) => [e.distinctId, e.properties.customer])).toEqual([[token, token], [token, token]]);
  });

  test("TEST, unknown types and sandbox notifications (unless accepted) are acknowledged and ignored", async () => {
    expect(await send("TEST", { transaction: null })).toEqual({ kind: "ignored", notificationId: "3f1c9a52-5e0e-4b6c-9e51-2c1b8d0a7e11", notificationType: "TEST" });
    expect((await send("CONSUMPTION_REQUEST")).kind).toBe("ignored");
    expect((await send("<b>NEW_TYPE</b>")).kind).toBe("ignored");
    expect((await send("DID_RENEW", { environment: "Sandbox", transaction: { environment: "Sandbox" } })).kind).toBe("ignored");
    // In the sandbox a month renews every 5 minutes.
    const sandbox = await send("DID_RENEW", { environment: "Sandbox", transaction: { environment: "Sandbox", expiresDate: at - 60_000 + 5 * 60_000 } }, { ...integration.config, accept_sandbox: true });
    expect(eventsOf(sandbox)?.map((e) => [e.event, e.properties.period ?? null, e.properties.mrr ?? null])).toEqual([["$charge", null, null], ["$subscription_renewed", "month", 999]]);
  });
});
