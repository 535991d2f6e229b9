// Feature flags in our SDK: bootstrapped values answer synchronously right after init, the
// region's answer (POST {api_host}/flags) replaces them and reaches every onFeatureFlags
// callback, payloads come with it, and identify() asks again with the person's new id and
// properties. An answer that fails keeps what the page had and says so.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { postedBodies, startSdkBench, type SdkBench } from "./sdk-site.ts";

let bench: SdkBench;

/** Flags of the project's production environment, made live through the console. */
async function createFlags(): Promise<void> {
  const flags = `/app/projects/${bench.dedicated.project.id}/flags`;
  const variants = [{ key: "control", rollout_percentage: 0 }, { key: "cheaper", rollout_percentage: 100, payload: { price: 3900 } }];
  const admins = [{ properties: [{ type: "person", key: "role", operator: "eq", value: "admin" }] }];
  for (const body of [
    { key: "new-nav", name: "New navigation", payload: { items: 5 } },
    { key: "pricing-test", name: "Pricing test", kind: "multivariate", variants },
    { key: "admins-only", name: "Admins", rules: admins },
    { key: "switched-off", name: "Off" },
  ]) {
    const created = await bench.dedicated.owner.client.post(flags, body);
    expect([body.key, created.status]).toEqual([body.key, 201]);
    if (body.key === "switched-off") continue;
    const enabled = await bench.dedicated.owner.client.patch(`${flags}/${created.body.id}/environments/production`, { enabled: true });
    expect([body.key, enabled.status]).toEqual([body.key, 200]);
  }
}

beforeAll(async () => {
  bench = await startSdkBench();
  await createFlags();
}, 600_000);
afterAll(async () => {
  await bench?.dispose();
});

const flagScript = (key: string, ingestUrl: string) => `
  svcAnalytics.init(${JSON.stringify(key)}, ${JSON.stringify({
    api_host: ingestUrl, capture_pageview: false, bootstrap: { distinct_id: "flag-visitor", feature_flags: { "new-nav": false, "boot-only": "v1" } },
  })});
  window.atInit = ["new-nav", "boot-only", "absent"].map((key) => [svcAnalytics.getFeatureFlag(key) ?? null, svcAnalytics.isFeatureEnabled(key) ?? null]);
  window.calls = [];
  svcAnalytics.onFeatureFlags((flags, context) => window.calls.push([flags, context]));`;

test("bootstrap answers at once; the remote answer, with payloads, reaches onFeatureFlags; identify reloads with the person's properties", async () => {
  const site = bench.site({ "/": { script: flagScript(bench.dedicated.key, bench.ingestUrl) } });
  const tab = await bench.browser.newPage();
  const flagRequests = postedBodies(tab, /^\/ingest\/eu\/flags$/);
  await tab.goto(`${site.url}/`);
  expect(await tab.evaluate("window.atInit")).toEqual([[false, false], ["v1", true], [null, null]]);
  await tab.waitForFunction("window.calls.length === 2");
  const remote = { "new-nav": true, "pricing-test": "cheaper", "admins-only": false, "switched-off": false };
  expect(await tab.evaluate("window.calls")).toEqual([
    [{ "new-nav": false, "boot-only": "v1" }, { errorsLoading: false }],
    [remote, { errorsLoading: false }],
  ]);
  expect(await tab.evaluate(`["new-nav", "pricing-test", "admins-only", "boot-only"].map((key) => [svcAnalytics.getFeatureFlag(key) ?? null, svcAnalytics.getFeatureFlagPayload(key) ?? null])`)).toEqual([
    [true, { items: 5 }], ["cheaper", { price: 3900 }], [false, null], [null, null],
  ]);

  await tab.evaluate(`svcAnalytics.identify("flag-admin", { role: "admin" })`);
  await tab.waitForFunction("window.calls.length === 3");
  expect(await tab.evaluate("window.calls[2]")).toEqual([{ ...remote, "admins-only": true }, { errorsLoading: false }]);
  expect(await tab.evaluate(`svcAnalytics.isFeatureEnabled("admins-only")`)).toBe(true);
  // A callback added later hears the current flags at once (synchronously); unsubscribed, it hears no more.
  expect(await tab.evaluate(`(() => {
    window.late = [];
    window.offLate = svcAnalytics.onFeatureFlags((flags) => window.late.push(flags["admins-only"]));
    return window.late;
  })()`)).toEqual([true]);
  await tab.evaluate("window.offLate()");

  expect(flagRequests.bodies).toEqual([
    { api_key: bench.dedicated.key, distinct_id: "flag-visitor", groups: {}, person_properties: {} },
    { api_key: bench.dedicated.key, distinct_id: "flag-admin", groups: {}, person_properties: { role: "admin" } },
  ]);
  await tab.evaluate("svcAnalytics.reset()");
  await tab.waitForFunction("window.calls.length === 4");
  expect(await tab.evaluate(`[svcAnalytics.isFeatureEnabled("admins-only"), window.late]`)).toEqual([false, [true]]);
  await tab.close();
  site.stop();
}, 60_000);

test("a failed answer (an unknown key) keeps the bootstrapped flags and reports errorsLoading", async () => {
  const site = bench.site({ "/": { script: flagScript("svc_pk_eu_production_unknown", bench.ingestUrl) } });
  const tab = await bench.browser.newPage();
  await tab.goto(`${site.url}/`);
  await tab.waitForFunction("window.calls.length === 2");
  expect(await tab.evaluate("window.calls")).toEqual([
    [{ "new-nav": false, "boot-only": "v1" }, { errorsLoading: false }],
    [{ "new-nav": false, "boot-only": "v1" }, { errorsLoading: true }],
  ]);
  await tab.close();
  site.stop();
}, 60_000);
