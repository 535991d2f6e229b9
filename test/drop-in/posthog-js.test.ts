// posthog-js, unmodified from the npm registry, in headless Chromium (Debian's package, driven
// by playwright-core): a page on its own origin loads the SDK pointed at the service, captures
// a pageview and a custom event, identifies, and receives its feature flags and payloads.
// What it stored is read back through the region API.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { isUuidV7 } from "../../storage/uuid-index.ts";
import { launchChromium } from "../helpers/chromium.ts";
import { startDedicatedService, type DedicatedService } from "../ingest/helpers.ts";
import { regionReader, type RegionReader } from "./region-reader.ts";

const sdkBundle = join(import.meta.dir, "../../node_modules/posthog-js/dist/array.full.js");
/** Where posthog-js posts events: /e/, or /i/v0/e/ once remote config names it. */
const capturePath = /^\/ingest\/eu\/(i\/v0\/)?e\/?$/;

let dedicated: DedicatedService;
let reader: RegionReader;
let browser: Browser;
let site: ReturnType<typeof Bun.serve>;

/** The app's page: loads the SDK from its own origin and talks to the service's ingest URL. */
function page(key: string, ingestUrl: string): string {
  return `<!doctype html>
<html><head><title>Pricing</title><script src="/posthog.js"></script></head>
<body><h1>Pricing</h1><script>
  posthog.init(${JSON.stringify(key)}, {
    api_host: ${JSON.stringify(ingestUrl)},
    request_batching: false,
    autocapture: false,
    persistence: "memory",
    bootstrap: { distinctID: "browser-anonymous" },
    // posthog-js drops events from browsers that look automated unless told this is a test.
    opt_out_useragent_filter: true,
    loaded: (client) => {
      client.onFeatureFlags(() => {
        window.receivedFlags = Object.fromEntries(["new-nav", "pricing-test", "switched-off"].map((key) => [key, [client.getFeatureFlag(key) ?? null, client.getFeatureFlagPayload(key) ?? null]]));
      });
      // Major units, as PostHog's SDKs send money: stored as 4900 cents.
      client.capture("clicked_cta", { plan: "pro", price: 49, currency: "EUR" });
      client.identify("browser-user", { plan: "pro" });
    },
  });
</script></body></html>`;
}

/** Flags of the project's production environment, made live through the console. */
async function createFlags(): Promise<void> {
  const flags = `/app/projects/${dedicated.project.id}/flags`;
  const variants = [{ key: "control", rollout_percentage: 0 }, { key: "cheaper", rollout_percentage: 100, payload: { price: 3900 } }];
  for (const body of [
    { key: "new-nav", name: "New navigation", payload: { items: 5 } },
    { key: "pricing-test", name: "Pricing test", kind: "multivariate", variants },
    { key: "switched-off", name: "Off" },
  ]) {
    const created = await dedicated.owner.client.post(flags, body);
    expect(created.status).toBe(201);
    if (body.key === "switched-off") continue;
    expect((await dedicated.owner.client.patch(`${flags}/${created.body.id}/environments/production`, { enabled: true })).status).toBe(200);
  }
}

beforeAll(async () => {
  dedicated = await startDedicatedService();
  reader = await regionReader(dedicated.service, dedicated.owner, dedicated.project.id);
  await createFlags();
  const html = page(dedicated.key, `${dedicated.service.url}/ingest/eu`);
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) =>
      new URL(request.url).pathname === "/posthog.js"
        ? new Response(Bun.file(sdkBundle), { headers: { "content-type": "application/javascript" } })
        : new Response(html, { headers: { "content-type": "text/html" } }),
  });
  browser = await launchChromium();
}, 600_000);
afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  await dedicated?.dispose();
});

test("posthog-js sends a pageview, a custom event and an identify that the service stores and merges", async () => {
  const tab = await browser.newPage();
  const serviceAnswers: [string, number][] = [];
  const serviceOrigin = new URL(dedicated.service.url).origin;
  tab.on("response", (response) => {
    const url = new URL(response.url());
    if (url.origin === serviceOrigin) serviceAnswers.push([url.pathname, response.status()]);
  });
  // Each event is one request (request_batching off): the six answers mean all are stored. The
  // page reads three flags, and posthog-js reports each first read as a $feature_flag_called.
  const captured = waitForCaptures(tab, 6);
  await tab.goto(site.url.href);
  await captured;

  const person = await reader.personOf("browser-user");
  const anonymous = "browser-anonymous";
  expect([...person.distinct_ids].sort()).toEqual([anonymous, "browser-user"]);
  expect(person.properties.plan).toBe("pro");
  // posthog-js sends the initial pageview once `loaded` has run, so under either id; each
  // event travels alone and clock correction may swap close ones: compared by name.
  const stored = await reader.eventsOf(person);
  const exposures = stored.filter(({ event }) => event === "$feature_flag_called");
  expect(exposures.map(({ properties }) => [properties.$feature_flag, properties.$feature_flag_response]).sort()).toEqual([
    ["new-nav", true],
    ["pricing-test", "cheaper"],
    ["switched-off", false],
  ]);
  const events = stored.filter(({ event }) => event !== "$feature_flag_called").sort((a, b) => (a.event < b.event ? -1 : 1));
  expect(events.map(({ event, lib }) => ({ event, lib: lib.name }))).toEqual([
    { event: "$identify", lib: "posthog-compat" },
    { event: "$pageview", lib: "posthog-compat" },
    { event: "clicked_cta", lib: "posthog-compat" },
  ]);
  const [identify, pageview, cta] = events;
  expect([identify!.distinct_id, cta!.distinct_id, person.distinct_ids.includes(pageview!.distinct_id)]).toEqual(["browser-user", anonymous, true]);
  expect(pageview!.properties).toMatchObject({ $current_url: site.url.href, $pathname: "/", title: "Pricing", $lib: "web", $raw_user_agent: expect.stringContaining("HeadlessChrome") });
  expect(cta!.properties).toMatchObject({ plan: "pro", price: 4900, currency: "EUR", $lib: "web" });
  expect([identify!.anon_id, identify!.$set]).toEqual([anonymous, { plan: "pro" }]);
  // One browser session: every event carries the same UUIDv7 session id.
  expect(isUuidV7(pageview!.session_id)).toBe(true);
  expect(events.map((event) => event.session_id)).toEqual([pageview!.session_id, pageview!.session_id, pageview!.session_id]);
  // The flags and payloads as the page's code reads them from the SDK.
  await tab.waitForFunction("window.receivedFlags !== undefined");
  expect(await tab.evaluate("window.receivedFlags")).toEqual({
    "new-nav": [true, { items: 5 }],
    "pricing-test": ["cheaper", { price: 3900 }],
    "switched-off": [false, null],
  });
  expect(serviceAnswers.some(([path]) => /^\/ingest\/eu\/(flags|decide)\/?$/.test(path))).toBe(true);
  // Every request the SDK made to the service was answered 200.
  expect(serviceAnswers.filter(([, status]) => status !== 200)).toEqual([]);
  await tab.close();
}, 120_000);

/** Resolves once `count` capture requests to the service have been answered. */
function waitForCaptures(tab: Awaited<ReturnType<Browser["newPage"]>>, count: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    tab.on("response", (response) => {
      const url = new URL(response.url());
      if (capturePath.test(url.pathname) && response.request().method() === "POST" && ++seen === count) resolve();
    });
  });
}
