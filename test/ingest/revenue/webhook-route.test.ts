// POST /ingest/{region}/wh/{provider}/{token} over real HTTP, with RevenueCat as the provider:
// which URLs answer (unknown, rotated, disabled, deleted, wrong provider: 404), the body limit at
// its edge, authentication (401 and an ingestion warning that holds neither the secret nor the
// body), payload errors (400), unknown types (200, nothing stored), and events stored exactly
// once across redeliveries, never sampled past a spend cap, read back through /sql.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { createProject, createToken, regionTokenFor, signUp, v1, type SignedUpUser } from "../../helpers/accounts.ts";
import { bearer, call, type Reply } from "../../helpers/client.ts";
import { uuidIndexCapacity } from "../../../storage/uuid-index.ts";
import { handleWebhook, webhookBodyBytesMax, webhookMessageCharactersMax } from "../../../server/ingest/revenue/webhook-route.ts";
import { WebhookAuthError, WebhookPayloadError, type RevenueProvider, type RevenueProviderModule } from "../../../server/ingest/revenue/provider.ts";

let service: TestService;
let owner: SignedUpUser;
let project: any;
let pat: string;
let integration: any;

const authorization = "Bearer rc-hook-0123456789";

beforeAll(async () => {
  service = await startTestService();
  owner = await signUp(service, "Owner");
  project = (await createProject(owner, "App", "eu", "UTC")).project;
  pat = (await createToken(owner, ["projects:write", "sql.raw", "query:read"])).secret;
  integration = await createIntegration({ provider: "revenuecat", secret: authorization });
});
afterAll(() => service.close());

async function createIntegration(body: unknown): Promise<any> {
  const reply = await v1(service, pat, "POST", `/v1/projects/${project.id}/integrations`, body);
  expect(reply.status).toBe(201);
  return reply.body;
}

const pathOf = (webhookUrl: string) => new URL(webhookUrl).pathname;

async function deliver(path: string, body: string | Uint8Array, headers: Record<string, string> = { authorization }): Promise<Reply> {
  const response = await fetch(service.url + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text), headers: response.headers };
}

const now = Date.now();
const rcEvent = (event: Record<string, unknown>) => JSON.stringify({
  api_version: "1.0",
  event: {
    id: crypto.randomUUID(), type: "INITIAL_PURCHASE", app_user_id: "user-1", original_app_user_id: "user-1", aliases: ["user-1"],
    product_id: "pro_monthly", period_type: "NORMAL", purchased_at_ms: now - 60_000, expiration_at_ms: now - 60_000 + 30 * 86_400_000,
    event_timestamp_ms: now - 30_000, environment: "PRODUCTION", store: "APP_STORE", currency: "EUR", price: 10.5, price_in_purchased_currency: 9.99,
    transaction_id: "2000000001", original_transaction_id: "2000000000", ...event,
  },
});

const received = (events: number, duplicates = 0, rejected = 0) => ({ received: true, events, duplicates, rejected });
const notFound = { error: { code: "not_found", message: "no webhook at this URL" } };

async function sql(query: string): Promise<any[][]> {
  const token = await regionTokenFor(service, pat, project.id, ["sql.raw"]);
  const reply = await call(service.url, "POST", "/region/eu/sql", { headers: bearer(token), body: { sql: query } });
  expect(reply.status).toBe(200);
  return reply.body.rows;
}

describe("POST /wh/{provider}/{token}", () => {
  test("a notification is stored once however often it is delivered, with the revenue properties, never sampled out", async () => {
    // Past a spend cap ingest keeps a sample; revenue webhooks keep everything.
    service.nodes.get("eu")!.setKeepRatio(project.id, 0.001);
    const body = rcEvent({ id: "rc-event-1" });
    const path = pathOf(integration.webhook_url);
    expect(await deliver(path, body)).toMatchObject({ status: 200, body: received(2) });
    expect(await deliver(path, body)).toMatchObject({ status: 200, body: received(0, 2) });
    service.nodes.get("eu")!.setKeepRatio(project.id, 1);

    // Properties are read from their flattened columns (p_<name>).
    const rows = await sql(`SELECT event, distinct_id, lib_name, lib_version, p_amount, p_currency, p_mrr, p_period, p_product, p_provider, p_provider_event_id, p_customer, p_subscription_id
      FROM events WHERE p_provider_event_id = 'rc-event-1' ORDER BY event`);
    expect(rows).toEqual([
      ["$charge", "user-1", "webhook", "revenuecat", 999, "EUR", null, null, "pro_monthly", "revenuecat", "rc-event-1", "user-1", "2000000000"],
      ["$subscription_started", "user-1", "webhook", "revenuecat", null, "EUR", 999, "month", "pro_monthly", "revenuecat", "rc-event-1", "user-1", "2000000000"],
    ]);
  });

  test("types that are not mapped, and sandbox purchases, are acknowledged and nothing is stored", async () => {
    const path = pathOf(integration.webhook_url);
    for (const event of [{ id: "rc-test", type: "TEST" }, { id: "rc-change", type: "PRODUCT_CHANGE" }, { id: "rc-made-up", type: "SOMETHING_NEW" }, { id: "rc-sandbox", environment: "SANDBOX" }]) {
      expect(await deliver(path, rcEvent(event))).toMatchObject({ status: 200, body: received(0) });
    }
    expect(await sql("SELECT count(*) FROM events WHERE p_provider_event_id IN ('rc-test', 'rc-change', 'rc-made-up', 'rc-sandbox')")).toEqual([[0]]);
  });

  test("URLs that are not an active integration's answer 404: unknown token, other provider, unknown provider, other region", async () => {
    const token = integration.webhook_url.split("/").at(-1);
    const body = rcEvent({});
    for (const path of [
      "/ingest/eu/wh/revenuecat/not-a-token",
      `/ingest/eu/wh/stripe/${token}`,
      `/ingest/eu/wh/paypal/${token}`,
      `/ingest/us/wh/revenuecat/${token}`,
    ]) {
      const reply = await deliver(path, body);
      expect([path, reply.status, reply.body]).toEqual([path, 404, notFound]);
    }
    // Every provider of the spec has its module: an App Store URL is served, and an unsigned body is refused.
    const appStore = await createIntegration({ provider: "app_store", config: { bundle_id: "com.example.app" } });
    const unsigned = await deliver(pathOf(appStore.webhook_url), "{}");
    expect({ status: unsigned.status, body: unsigned.body }).toEqual({
      status: 401,
      body: { error: { code: "unauthorized", message: "the request is not signed by app_store for this integration (missing_signature)" } },
    });
  });

  test("rotate-token: the old URL answers 404 right after the rotation's 200; disabled and deleted integrations 404 too", async () => {
    const own = await createIntegration({ provider: "revenuecat", secret: authorization });
    const oldPath = pathOf(own.webhook_url);
    expect((await deliver(oldPath, rcEvent({}))).status).toBe(200);
    const rotated = await v1(service, pat, "POST", `/v1/projects/${project.id}/integrations/${own.id}/rotate-token`);
    expect(rotated.status).toBe(200);
    expect(await deliver(oldPath, rcEvent({}))).toMatchObject({ status: 404, body: notFound });
    const newPath = pathOf(rotated.body.webhook_url);
    expect(await deliver(newPath, rcEvent({}))).toMatchObject({ status: 200, body: received(2) });

    const disabled = await v1(service, pat, "PATCH", `/v1/projects/${project.id}/integrations/${own.id}`, { status: "disabled" });
    expect(disabled.status).toBe(200);
    expect(await deliver(newPath, rcEvent({}))).toMatchObject({ status: 404, body: notFound });
    await v1(service, pat, "PATCH", `/v1/projects/${project.id}/integrations/${own.id}`, { status: "active" });
    expect((await deliver(newPath, rcEvent({}))).status).toBe(200);

    expect((await v1(service, pat, "DELETE", `/v1/projects/${project.id}/integrations/${own.id}`)).status).toBe(204);
    expect(await deliver(newPath, rcEvent({}))).toMatchObject({ status: 404, body: notFound });
  });

  test(`the body may be up to ${webhookBodyBytesMax} bytes; one more is 413`, async () => {
    const path = pathOf(integration.webhook_url);
    const event = rcEvent({ type: "TEST" });
    const padded = (bytes: number) => event + " ".repeat(bytes - event.length);
    expect(await deliver(path, padded(webhookBodyBytesMax))).toMatchObject({ status: 200, body: received(0) });
    const over = await deliver(path, padded(webhookBodyBytesMax + 1));
    expect([over.status, over.body]).toEqual([413, { error: { code: "payload_too_large", message: `request body exceeds ${webhookBodyBytesMax} bytes` } }]);
    // Without a declared length (chunked), the limit holds while reading.
    const stream = new ReadableStream({ start(controller) { controller.enqueue(new TextEncoder().encode(padded(webhookBodyBytesMax + 1))); controller.close(); } });
    const chunked = await fetch(service.url + path, { method: "POST", headers: { authorization, "content-type": "application/json" }, body: stream });
    expect([chunked.status, await chunked.json()]).toEqual([413, { error: { code: "payload_too_large", message: `request body exceeds ${webhookBodyBytesMax} bytes` } }]);
  });

  test("a missing or wrong Authorization is 401 and an ingestion warning with neither the secret nor the body", async () => {
    const own = await createIntegration({ provider: "revenuecat", secret: "Bearer warned-secret-value" });
    const path = pathOf(own.webhook_url);
    const body = rcEvent({ id: "rc-forged", app_user_id: "victim<script>" });
    const missing = await deliver(path, body, {});
    expect([missing.status, missing.body]).toEqual([401, { error: { code: "unauthorized", message: "the request is not signed by revenuecat for this integration (missing_signature)" } }]);
    for (const guess of ["Bearer warned-secret-valuf", "Bearer warned-secret-valu", "bearer warned-secret-value"]) {
      const wrong = await deliver(path, body, { authorization: guess });
      expect([wrong.status, wrong.body]).toEqual([401, { error: { code: "unauthorized", message: "the request is not signed by revenuecat for this integration (bad_signature)" } }]);
    }
    expect(await sql("SELECT count(*) FROM events WHERE p_provider_event_id = 'rc-forged'")).toEqual([[0]]);

    const token = await regionTokenFor(service, pat, project.id, ["query:read"]);
    const warnings = await call(service.url, "GET", "/region/eu/ingestion/warnings?reason=webhook_unauthenticated", { headers: bearer(token) });
    expect(warnings.status).toBe(200);
    expect(warnings.body.results.map((entry: any) => [entry.reason, entry.message, entry.count, JSON.parse(entry.example)])).toEqual([
      ["webhook_unauthenticated", "revenuecat webhook not authenticated (bad_signature): the Authorization header is not the value configured for this integration", 3,
        { provider: "revenuecat", reason: "bad_signature", body_bytes: body.length }],
      // The unsigned App Store body of the 404 test above.
      ["webhook_unauthenticated", "app_store webhook not authenticated (missing_signature): the body is not an App Store notification {signedPayload}", 1,
        { provider: "app_store", reason: "missing_signature", body_bytes: 2 }],
      ["webhook_unauthenticated", "revenuecat webhook not authenticated (missing_signature): the Authorization header is missing", 1,
        { provider: "revenuecat", reason: "missing_signature", body_bytes: body.length }],
    ]);
    const text = JSON.stringify(warnings.body);
    for (const leaked of ["warned-secret", "victim", "rc-forged"]) expect(text).not.toContain(leaked);
  });

  test("an authentic body that is not a notification is 400", async () => {
    const path = pathOf(integration.webhook_url);
    const cases: [string, string][] = [
      ["{not json", "the body is not JSON"],
      ["[]", "the body has no event object"],
      [JSON.stringify({ event: { type: "RENEWAL", event_timestamp_ms: now } }), "event.id is missing"],
      [rcEvent({ app_user_id: null }), "event.app_user_id is required for INITIAL_PURCHASE"],
      [rcEvent({ currency: "XYZ" }), "event.currency is not an ISO 4217 currency code"],
      [rcEvent({ price_in_purchased_currency: null }), "event.currency and event.price_in_purchased_currency are required for INITIAL_PURCHASE"],
    ];
    for (const [body, message] of cases) {
      const reply = await deliver(path, body);
      expect([body, reply.status, reply.body]).toEqual([body, 400, { error: { code: "validation", message } }]);
    }
  });

  test("an app user id that is an email address is stored as a pseudonym", async () => {
    const reply = await deliver(pathOf(integration.webhook_url), rcEvent({ id: "rc-email", app_user_id: "person@example.com", type: "EXPIRATION" }));
    expect(reply).toMatchObject({ status: 200, body: received(1) });
    const rows = await sql("SELECT distinct_id FROM events WHERE p_provider_event_id = 'rc-email'");
    expect(rows).toHaveLength(1);
    expect(rows[0]![0]).not.toContain("person@example.com");
  });

  test("hostile ids and products are stored as text, exactly", async () => {
    const hostile = "'; DROP TABLE events; --<script>alert(1)</script>";
    const reply = await deliver(pathOf(integration.webhook_url), rcEvent({ id: "rc-hostile", app_user_id: hostile, product_id: `${hostile}\u0000`, type: "EXPIRATION" }));
    expect(reply).toMatchObject({ status: 200, body: received(1) });
    expect(await sql("SELECT distinct_id, p_product, p_customer FROM events WHERE p_provider_event_id = 'rc-hostile'")).toEqual([[hostile, `${hostile}\u0000`, hostile]]);
  });

  test("durable before the answer: after a restart the events are there and a redelivery is still a duplicate", async () => {
    const body = rcEvent({ id: "rc-restart", type: "NON_RENEWING_PURCHASE", expiration_at_ms: null });
    const path = pathOf(integration.webhook_url);
    expect(await deliver(path, body)).toMatchObject({ status: 200, body: received(1) });
    service = await service.restart();
    expect(await deliver(path, body)).toMatchObject({ status: 200, body: received(0, 1) });
    expect(await sql("SELECT event, p_amount, p_currency FROM events WHERE p_provider_event_id = 'rc-restart'")).toEqual([["$charge", 999, "EUR"]]);
  });

  test("a redelivery after the region's recent-uuid index forgot the events is still stored once (the webhook event log)", async () => {
    const body = rcEvent({ id: "rc-late", type: "NON_RENEWING_PURCHASE", expiration_at_ms: null });
    const path = pathOf(integration.webhook_url);
    expect(await deliver(path, body)).toMatchObject({ status: 200, body: received(1) });
    const uuid = (await sql("SELECT uuid FROM events WHERE p_provider_event_id = 'rc-late'"))[0]![0] as string;
    // A busy region: two generations of newer uuids push this one out of the index.
    const node = service.nodes.get("eu")!;
    for (let i = 0; i < uuidIndexCapacity; i++) node.uuids.add(project.id, Bun.randomUUIDv7());
    expect(node.uuids.has(project.id, uuid)).toBe(false);
    expect(await deliver(path, body)).toMatchObject({ status: 200, body: received(0, 1) });
    expect(await sql("SELECT event, p_amount, p_currency FROM events WHERE p_provider_event_id = 'rc-late'")).toEqual([["$charge", 999, "EUR"]]);
  });

  test(`a module's message is cut to ${webhookMessageCharactersMax} characters in the warning and the 400`, async () => {
    const own = await createIntegration({ provider: "revenuecat", secret: "Bearer long-messages-1" });
    const token = own.webhook_url.split("/").at(-1);
    const node = service.nodes.get("eu")!;
    const long = "m".repeat(webhookMessageCharactersMax * 2);
    const failing = (error: Error): ReadonlyMap<RevenueProvider, RevenueProviderModule> =>
      new Map([["revenuecat", { provider: "revenuecat", handle: async () => { throw error; } }]]);
    const request = () => new Request(`http://localhost/wh/revenuecat/${token}`, { method: "POST", body: "{}" });
    const payload = await handleWebhook(node, failing(new WebhookPayloadError(long)), request(), "revenuecat", token);
    expect([payload.status, await payload.json()]).toEqual([400, { error: { code: "validation", message: long.slice(0, webhookMessageCharactersMax) } }]);
    const unauthenticated = await handleWebhook(node, failing(new WebhookAuthError("bad_signature", long)), request(), "revenuecat", token);
    expect(unauthenticated.status).toBe(401);
    const regionToken = await regionTokenFor(service, pat, project.id, ["query:read"]);
    const warnings = await call(service.url, "GET", "/region/eu/ingestion/warnings?reason=webhook_unauthenticated", { headers: bearer(regionToken) });
    const cut = warnings.body.results.find((entry: any) => entry.message.endsWith("mmm"));
    const expected = `revenuecat webhook not authenticated (bad_signature): ${long}`.slice(0, webhookMessageCharactersMax);
    expect([cut.message, cut.message.length]).toEqual([expected, webhookMessageCharactersMax]);
  });
});
