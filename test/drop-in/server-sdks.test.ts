// Real server-side SDKs from the npm registry, unmodified, pointed at a service on port 0:
// posthog-node (gzip and plain), @segment/analytics-node and @rudderstack/rudder-sdk-node.
// What they stored is read back through the region API (persons and their events).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { PostHog } from "posthog-node";
import { Analytics as SegmentAnalytics } from "@segment/analytics-node";
import RudderAnalytics from "@rudderstack/rudder-sdk-node";
import { startDedicatedService, type DedicatedService } from "../ingest/helpers.ts";
import { regionReader, type RegionEvent, type RegionReader } from "./region-reader.ts";

let dedicated: DedicatedService;
let reader: RegionReader;
let ingestUrl: string;

beforeAll(async () => {
  dedicated = await startDedicatedService();
  reader = await regionReader(dedicated.service, dedicated.owner, dedicated.project.id);
  ingestUrl = `${dedicated.service.url}/ingest/eu`;
});
afterAll(async () => { await dedicated.dispose(); });

/**
 * A person's events by name. Each SDK call may travel in its own request, and times corrected
 * for the client's clock can swap two calls made within a millisecond or so, so the tests do
 * not depend on their order.
 */
const byName = (events: RegionEvent[]) => [...events].sort((a, b) => (a.event < b.event ? -1 : a.event > b.event ? 1 : 0));
const summary = (events: RegionEvent[]) => events.map(({ event, distinct_id, lib }) => ({ event, distinct_id, lib: lib.name }));
const within = (iso: string, expected: number, toleranceMs = 10_000) => Math.abs(Date.parse(iso) - expected) < toleranceMs;

describe("posthog-node", () => {
  for (const compression of ["gzip", "plain"] as const) {
    test(`capture, identify, alias and groupIdentify (${compression})`, async () => {
      const id = `ph-node-${compression}`;
      const client = new PostHog(dedicated.key, { host: ingestUrl, flushAt: 1, flushInterval: 0, disableCompression: compression === "plain", fetchRetryCount: 0 });
      const sentAt = Date.now();
      client.capture({ distinctId: `${id}-anon`, event: "viewed_pricing", properties: { plan: "free" } });
      // PostHog's SDKs send money in major units: 42.00 EUR is stored as 4200 cents.
      client.capture({ distinctId: `${id}-anon`, event: "order_placed", properties: { amount: 42, currency: "EUR" }, groups: { company: `${id}-acme` } });
      client.identify({ distinctId: `${id}-user`, properties: { $anon_distinct_id: `${id}-anon`, plan: "pro" } });
      client.alias({ distinctId: `${id}-user`, alias: `${id}-alias` });
      client.groupIdentify({ groupType: "company", groupKey: `${id}-acme`, properties: { seats: 40 } });
      await client.shutdown();

      // identify merged the anonymous person into the user; alias added a distinct id.
      const person = await reader.personOf(`${id}-user`);
      expect([...person.distinct_ids].sort()).toEqual([`${id}-alias`, `${id}-anon`, `${id}-user`]);
      expect([person.properties.plan, person.is_identified]).toEqual(["pro", true]);
      const events = byName(await reader.eventsOf(person));
      expect(summary(events)).toEqual([
        { event: "$create_alias", distinct_id: `${id}-user`, lib: "posthog-compat" },
        { event: "$identify", distinct_id: `${id}-user`, lib: "posthog-compat" },
        { event: "order_placed", distinct_id: `${id}-anon`, lib: "posthog-compat" },
        { event: "viewed_pricing", distinct_id: `${id}-anon`, lib: "posthog-compat" },
      ]);
      const [alias, identify, order, pricing] = events;
      expect(pricing!.properties).toMatchObject({ plan: "free", $lib: "posthog-node" });
      expect(order!.properties).toMatchObject({ amount: 4200, currency: "EUR", $lib: "posthog-node" });
      expect(order!.groups).toEqual({ company: `${id}-acme` });
      expect(identify!.$set).toMatchObject({ plan: "pro" });
      expect(alias!.properties).toMatchObject({ alias: `${id}-alias` });
      expect(events.every((event) => within(event.timestamp, sentAt))).toBe(true);
    });
  }
});

describe("@segment/analytics-node", () => {
  test("track, identify, page, group and alias", async () => {
    // analytics-node resolves `path` against `host`, so the ingest prefix goes in `path`.
    const analytics = new SegmentAnalytics({ writeKey: dedicated.key, host: dedicated.service.url, path: "/ingest/eu/v1/batch", flushAt: 1, maxRetries: 0 });
    const sentAt = Date.now();
    analytics.track({ anonymousId: "seg-node-anon", event: "Product Viewed", properties: { sku: "A-1", price: 12.5, currency: "EUR" } });
    analytics.identify({ userId: "seg-node-user", anonymousId: "seg-node-anon", traits: { plan: "pro" } });
    analytics.page({ userId: "seg-node-user", name: "Pricing", properties: { url: "https://shop.example/pricing", path: "/pricing" } });
    analytics.group({ userId: "seg-node-user", groupId: "seg-node-acme", traits: { seats: 12 } });
    analytics.alias({ userId: "seg-node-user", previousId: "seg-node-legacy" });
    await analytics.closeAndFlush();

    const person = await reader.personOf("seg-node-user");
    expect([...person.distinct_ids].sort()).toEqual(["seg-node-anon", "seg-node-legacy", "seg-node-user"]);
    expect(person.properties.plan).toBe("pro");
    const events = byName(await reader.eventsOf(person));
    expect(summary(events)).toEqual([
      { event: "$create_alias", distinct_id: "seg-node-user", lib: "segment-compat" },
      { event: "$groupidentify", distinct_id: "seg-node-user", lib: "segment-compat" },
      { event: "$identify", distinct_id: "seg-node-user", lib: "segment-compat" },
      { event: "$pageview", distinct_id: "seg-node-user", lib: "segment-compat" },
      { event: "Product Viewed", distinct_id: "seg-node-anon", lib: "segment-compat" },
    ]);
    const [, group, identify, page, viewed] = events;
    expect(viewed!.properties).toMatchObject({ sku: "A-1", price: 1250, currency: "EUR", $lib: "@segment/analytics-node" });
    expect(identify!.$set).toEqual({ plan: "pro" });
    expect(page!.properties).toMatchObject({ $current_url: "https://shop.example/pricing", $pathname: "/pricing", $page_name: "Pricing" });
    expect([group!.groups, group!.properties.$group_set]).toEqual([{ company: "seg-node-acme" }, { seats: 12 }]);
    expect(events.every((event) => within(event.timestamp, sentAt))).toBe(true);
  });
});

describe("@rudderstack/rudder-sdk-node", () => {
  test("gzip batches with HTTP Basic auth", async () => {
    const client = new RudderAnalytics(dedicated.key, { dataPlaneUrl: ingestUrl, flushAt: 1, gzip: true });
    const sentAt = Date.now();
    // Each call's callback runs once its batch was answered; flush() alone can resolve while
    // the second batch is still in flight (each flush sends one batch of flushAt calls).
    const delivered = (send: (done: (error?: Error) => void) => void) =>
      new Promise<void>((resolve, reject) => send((error) => (error ? reject(error) : resolve())));
    await Promise.all([
      delivered((done) => client.identify({ userId: "rudder-user", anonymousId: "rudder-anon", traits: { plan: "team" } }, done)),
      delivered((done) => client.track({ userId: "rudder-user", event: "Report Exported", properties: { format: "csv" } }, done)),
    ]);

    const person = await reader.personOf("rudder-user");
    expect([...person.distinct_ids].sort()).toEqual(["rudder-anon", "rudder-user"]);
    const events = byName(await reader.eventsOf(person));
    expect(summary(events)).toEqual([
      { event: "$identify", distinct_id: "rudder-user", lib: "segment-compat" },
      { event: "Report Exported", distinct_id: "rudder-user", lib: "segment-compat" },
    ]);
    expect([events[0]!.$set, events[1]!.properties]).toEqual([{ plan: "team" }, expect.objectContaining({ format: "csv" })]);
    expect(events.every((event) => within(event.timestamp, sentAt))).toBe(true);
  });
});
