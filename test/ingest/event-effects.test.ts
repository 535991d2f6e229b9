import { describe, expect, test } from "bun:test";
import { UserAgentKinds } from "../../server/ingest/event-effects.ts";

const browser = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const headless = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36";
const crawler = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const serverSdk = "posthog-node/5.1.0";

describe("user agent kinds", () => {
  test("each agent of a request is classified as it would be alone, whatever agent came before it", () => {
    const agents = new UserAgentKinds();
    // The same text as another string object (as each event's parsed property is) counts as the same agent.
    const browserAgain = ["Mozilla/5.0", browser.slice("Mozilla/5.0".length)].join("");
    const sequence = [browser, browserAgain, crawler, crawler, headless, null, browser, serverSdk, headless, null, crawler];
    const browserKind = { crawler: false, headless: false, browser: true };
    const crawlerKind = { crawler: true, headless: false, browser: true };
    const headlessKind = { crawler: false, headless: true, browser: true };
    const none = { crawler: false, headless: false, browser: false };
    const expected = [browserKind, browserKind, crawlerKind, crawlerKind, headlessKind, none, browserKind, none, headlessKind, none, crawlerKind];
    expect(sequence.map((agent) => agents.of(agent))).toEqual(expected);
    expect(sequence.map((agent) => new UserAgentKinds().of(agent))).toEqual(expected);
  });
});
