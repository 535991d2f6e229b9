// Our browser SDK in headless Chromium, loaded with a script tag from the service by a page on
// another origin: automatic and history pageviews, custom events, super properties, groups,
// identify and alias arrive as native events (UUIDv7 ids, one session and window id, the SDK's
// lib), in gzip bodies; the person is merged; consent modes behave as docs/sdk.md says.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { isUuidV7 } from "../../../storage/uuid-index.ts";
import { libName, libVersion } from "../../../web/sdk/version.ts";
import { postedBodies, startSdkBench, storedEventsOf, until, type SdkBench } from "./sdk-site.ts";

let bench: SdkBench;

beforeAll(async () => {
  bench = await startSdkBench();
}, 600_000);
afterAll(async () => {
  await bench?.dispose();
});

const init = (options: Record<string, unknown>) =>
  `svcAnalytics.init(${JSON.stringify(bench.dedicated.key)}, ${JSON.stringify({ api_host: bench.ingestUrl, flush_interval_ms: 100, ...options })});`;

test("pageviews, a custom event, super properties, a group, identify and alias arrive as native events of one merged person", async () => {
  const site = bench.site({
    "/": {
      title: "Home <&>",
      script: `${init({ bootstrap: { distinct_id: "anon-visitor" } })}
        svcAnalytics.register({ plan: "pro", team: "a" });
        svcAnalytics.unregister("team");
        svcAnalytics.capture("clicked_cta", { button: "buy" });
        svcAnalytics.group("company", "acme", { name: "Acme" });
        svcAnalytics.identify("user-1", { role: "admin" }, { first_page: "home" });
        svcAnalytics.alias("user-1-legacy");
        history.pushState({}, "", "/pricing?tier=pro");`,
    },
  });
  const tab = await bench.browser.newPage();
  const posted = postedBodies(tab, /^\/ingest\/eu\/e$/);
  await tab.goto(`${site.url}/`);
  const events = await storedEventsOf(bench.reader, "user-1", 6);
  const person = (await bench.reader.personOf("user-1"))!;
  expect([...person.distinct_ids].sort()).toEqual(["anon-visitor", "user-1", "user-1-legacy"]);
  expect(person.properties).toMatchObject({ role: "admin", first_page: "home" });

  // Stored in the order they happened (same millisecond events keep their queue order on the wire).
  const sent = posted.bodies.flatMap((body) => (body as { batch: { event: string; uuid: string }[] }).batch);
  expect(sent.map(({ event }) => event)).toEqual(["$pageview", "clicked_cta", "$groupidentify", "$identify", "$create_alias", "$pageview"]);
  const byUuid = new Map(events.map((event) => [event.uuid, event]));
  const [home, cta, groupIdentify, identify, alias, pricing] = sent.map(({ uuid }) => byUuid.get(uuid)!);
  expect(sent.every(({ uuid }) => isUuidV7(uuid))).toBe(true);

  const sessionId = home!.session_id!;
  const windowId = home!.window_id!;
  expect([isUuidV7(sessionId), isUuidV7(windowId), sessionId === windowId]).toEqual([true, true, false]);
  for (const event of [home, cta, groupIdentify, identify, alias, pricing]) {
    expect([event!.event, event!.session_id, event!.window_id, event!.lib, event!.consent]).toEqual([
      event!.event, sessionId, windowId, { name: libName, version: libVersion }, "granted",
    ]);
  }
  expect(home!.properties).toMatchObject({
    $current_url: `${site.url}/`, $pathname: "/", $title: "Home <&>", $host: new URL(site.url).host,
    $browser: "Chrome", $os: "Linux", $device_type: "Desktop", $raw_user_agent: expect.stringContaining("HeadlessChrome"),
    $screen_width: expect.any(Number), $viewport_width: expect.any(Number),
  });
  // A page opened directly has no referrer.
  expect([home!.properties.plan, "$referrer" in home!.properties]).toEqual([undefined, false]);
  expect([cta!.distinct_id, cta!.properties.button, cta!.properties.plan, cta!.properties.team]).toEqual(["anon-visitor", "buy", "pro", undefined]);
  expect([groupIdentify!.properties.$group_type, groupIdentify!.properties.$group_key, groupIdentify!.properties.$group_set, groupIdentify!.groups]).toEqual([
    "company", "acme", { name: "Acme" }, { company: "acme" },
  ]);
  expect([identify!.distinct_id, identify!.anon_id, identify!.$set, identify!.$set_once, identify!.groups]).toEqual([
    "user-1", "anon-visitor", { role: "admin" }, { first_page: "home" }, { company: "acme" },
  ]);
  expect([alias!.distinct_id, alias!.properties.alias]).toEqual(["user-1", "user-1-legacy"]);
  expect(pricing!.properties).toMatchObject({ $current_url: `${site.url}/pricing?tier=pro`, $pathname: "/pricing", $referrer: `${site.url}/`, plan: "pro" });

  // Every request was gzipped by the browser and accepted whole.
  expect(posted.requests.map((request) => request.headers()["content-encoding"])).toEqual(posted.requests.map(() => "gzip"));
  await tab.close();
  site.stop();
}, 120_000);

test("a second page of the site continues the session, in a new tab a new window id; popstate is a pageview", async () => {
  const script = `${init({})} window.ids = () => [svcAnalytics.getDistinctId(), svcAnalytics.getSessionId()];`;
  const site = bench.site({ "/": { script }, "/two": { script } });
  const context = await bench.browser.newContext();
  const first = await context.newPage();
  await first.goto(`${site.url}/`);
  const [distinctId, sessionId] = (await first.evaluate("window.ids()")) as [string, string];
  await first.goto(`${site.url}/two`);
  await first.goBack();
  const second = await context.newPage();
  await second.goto(`${site.url}/two`);
  expect(await second.evaluate("window.ids()")).toEqual([distinctId, sessionId]);

  const events = await storedEventsOf(bench.reader, distinctId, 4);
  expect(events.map((event) => [event.event, event.properties.$pathname, event.session_id])).toEqual([
    ["$pageview", "/", sessionId], ["$pageview", "/two", sessionId], ["$pageview", "/", sessionId], ["$pageview", "/two", sessionId],
  ]);
  const windows = events.map((event) => event.window_id);
  expect([windows[0] === windows[1], windows[1] === windows[2], windows[2] === windows[3]]).toEqual([true, true, false]);
  await context.close();
  site.stop();
}, 120_000);

test("after 30 minutes without activity the next event starts a new session", async () => {
  const site = bench.site({ "/": { script: `${init({ capture_pageview: false })}` } });
  const tab = await bench.browser.newPage();
  await tab.goto(`${site.url}/`);
  const [distinctId, before] = (await tab.evaluate("[svcAnalytics.getDistinctId(), svcAnalytics.getSessionId()]")) as [string, string];
  // The stored session's last activity, moved 30 minutes and one second into the past.
  await tab.evaluate(`(() => {
    const key = "svca_" + ${JSON.stringify(bench.dedicated.key)} + "_session";
    const session = JSON.parse(localStorage.getItem(key));
    localStorage.setItem(key, JSON.stringify({ ...session, last: session.last - 30 * 60000 - 1000 }));
  })()`);
  await tab.evaluate(`svcAnalytics.capture("came_back")`);
  const after = (await tab.evaluate("svcAnalytics.getSessionId()")) as string;
  expect([isUuidV7(after), after === before]).toEqual([true, false]);
  const [event] = await storedEventsOf(bench.reader, distinctId, 1);
  expect([event!.event, event!.session_id]).toEqual(["came_back", after]);
  await tab.close();
  site.stop();
}, 120_000);

test("consent pending: events go with consent pending and nothing is stored in the browser until granted", async () => {
  const site = bench.site({ "/": { script: `${init({ consent: "pending", bootstrap: { distinct_id: "pending-visitor" } })}` } });
  const tab = await bench.browser.newPage();
  await tab.goto(`${site.url}/`);
  const storage = () => tab.evaluate("[Object.keys(localStorage), Object.keys(sessionStorage), document.cookie]");
  await storedEventsOf(bench.reader, "pending-visitor", 1);
  expect(await storage()).toEqual([[], [], ""]);
  await tab.evaluate(`svcAnalytics.setConsent("granted"); svcAnalytics.capture("after_consent")`);
  const key = `svca_${bench.dedicated.key}`;
  const [local, tabStorage, cookie] = (await storage()) as [string[], string[], string];
  expect([local.sort(), tabStorage, cookie]).toEqual([[key, `${key}_session`].sort(), [`${key}_window`], ""]);
  const events = await storedEventsOf(bench.reader, "pending-visitor", 2);
  expect(events.map((event) => [event.event, event.consent])).toEqual([["$pageview", "pending"], ["after_consent", "granted"]]);
  // The same session before and after consent: granting keeps the ids the page used.
  expect(events[0]!.session_id).toBe(events[1]!.session_id);
  // Withdrawn: what the SDK stored is removed.
  await tab.evaluate(`svcAnalytics.setConsent("pending")`);
  expect(await storage()).toEqual([[], [], ""]);
  await tab.close();
  site.stop();
}, 120_000);

test("consent cookieless: nothing stored, and each page load is a new anonymous id and session", async () => {
  const site = bench.site({ "/": { script: `${init({ consent: "cookieless" })} window.ids = () => [svcAnalytics.getDistinctId(), svcAnalytics.getSessionId()];` } });
  const tab = await bench.browser.newPage();
  await tab.goto(`${site.url}/`);
  const [firstId, firstSession] = (await tab.evaluate("window.ids()")) as [string, string];
  await tab.reload();
  const [secondId, secondSession] = (await tab.evaluate("window.ids()")) as [string, string];
  expect([firstId === secondId, firstSession === secondSession]).toEqual([false, false]);
  expect(await tab.evaluate("[Object.keys(localStorage), Object.keys(sessionStorage), document.cookie]")).toEqual([[], [], ""]);
  for (const [id, session] of [[firstId, firstSession], [secondId, secondSession]] as const) {
    const [event] = await storedEventsOf(bench.reader, id!, 1);
    expect([event!.event, event!.consent, event!.session_id, event!.distinct_id]).toEqual(["$pageview", "cookieless", session, id]);
  }
  await tab.close();
  site.stop();
}, 120_000);

test("reset starts a new anonymous person and session without super properties; calls before init are ignored", async () => {
  const site = bench.site({
    "/": {
      script: `svcAnalytics.capture("too_early");
        ${init({ capture_pageview: false })}
        svcAnalytics.register({ plan: "pro" });
        svcAnalytics.identify("reset-user");
        window.before = [svcAnalytics.getDistinctId(), svcAnalytics.getSessionId()];
        svcAnalytics.reset();
        svcAnalytics.capture("after_reset");
        window.after = [svcAnalytics.getDistinctId(), svcAnalytics.getSessionId()];`,
    },
  });
  const tab = await bench.browser.newPage();
  const warnings: string[] = [];
  tab.on("console", (message) => message.type() === "warning" && warnings.push(message.text()));
  await tab.goto(`${site.url}/`);
  const [before, after] = (await tab.evaluate("[window.before, window.after]")) as [[string, string], [string, string]];
  expect([before[0], after[0] === "reset-user", isUuidV7(after[0]), after[1] === before[1]]).toEqual(["reset-user", false, true, false]);
  const [event] = await storedEventsOf(bench.reader, after[0], 1);
  expect([event!.event, event!.session_id, event!.properties.plan]).toEqual(["after_reset", after[1], undefined]);
  expect(warnings).toEqual(["svcAnalytics: call init(apiKey, { api_host }) first"]);
  await until("the identify to be stored", () => bench.reader.personOf("reset-user"));
  await tab.close();
  site.stop();
}, 120_000);

test("autocapture reports clicks on links and buttons with their text as text, never a field's value", async () => {
  const site = bench.site({
    "/": {
      body: `<button id="buy" class="cta primary"><span>Buy &lt;img src=x onerror=alert(1)&gt; now</span></button>
        <a id="docs" href="/docs">Read the docs</a>
        <input id="email" type="text" value="typed@example.com">
        <p class="private"><button id="masked">Account 1234</button></p>
        <a id="profile" href="#profile"><span class="private">alice@example.com</span> profile</a>
        <div data-svca-no-capture><button id="quiet">Quiet</button></div>
        <p id="plain">Not clickable</p>`,
      script: `${init({ capture_pageview: false, autocapture: true, bootstrap: { distinct_id: "clicker" }, session_recording: { enabled: false, mask_text_selector: ".private" } })}`,
    },
  });
  const tab = await bench.browser.newPage();
  await tab.goto(`${site.url}/`);
  await tab.click("#buy span");
  await tab.evaluate(`document.getElementById("docs").addEventListener("click", (event) => event.preventDefault())`);
  await tab.click("#docs");
  await tab.click("#email");
  await tab.click("#masked");
  await tab.click("#profile");
  await tab.click("#quiet");
  await tab.click("#plain");
  // A text field, an element under data-svca-no-capture and plain text are not clicks autocapture reports.
  const events = await storedEventsOf(bench.reader, "clicker", 4);
  const elements = events.map(({ event, properties }) => [event, properties.$el_tag, properties.$el_id, properties.$el_classes, properties.$el_href, properties.$el_text]);
  expect(elements).toEqual([
    ["$autocapture", "button", "buy", ["cta", "primary"], undefined, "Buy <img src=x onerror=alert(1)> now"],
    ["$autocapture", "a", "docs", [], `${site.url}/docs`, "Read the docs"],
    // Under the text-masking selector: no text.
    ["$autocapture", "button", "masked", [], undefined, undefined],
    // A masked child's text is left out of its link's.
    ["$autocapture", "a", "profile", [], `${site.url}/#profile`, "profile"],
  ]);
  expect(JSON.stringify(events)).not.toContain("typed@example.com");
  expect(JSON.stringify(events)).not.toContain("alice@example.com");
  await tab.close();
  site.stop();
}, 60_000);

test("the ES module at /sdk/v1/analytics.mjs exports the same API", async () => {
  const site = bench.site({
    "/": {
      module: true,
      script: `import { init, capture, getDistinctId } from ${JSON.stringify(`${bench.dedicated.service.url}/sdk/v1/analytics.mjs`)};
        init(${JSON.stringify(bench.dedicated.key)}, ${JSON.stringify({ api_host: bench.ingestUrl, flush_interval_ms: 100, bootstrap: { distinct_id: "module-user" } })});
        capture("from_module");
        window.moduleId = getDistinctId();`,
    },
  });
  const tab = await bench.browser.newPage();
  await tab.goto(`${site.url}/`);
  await tab.waitForFunction("window.moduleId !== undefined");
  expect(await tab.evaluate("[window.moduleId, typeof window.svcAnalytics]")).toEqual(["module-user", "undefined"]);
  const events = await storedEventsOf(bench.reader, "module-user", 2);
  expect(events.map(({ event, lib }) => [event, lib.name]).sort()).toEqual([["$pageview", libName], ["from_module", libName]]);
  await tab.close();
  site.stop();
}, 60_000);
