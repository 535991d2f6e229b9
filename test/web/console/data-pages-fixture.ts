// What the browser tests of the data pages (live events, SQL, tracking plan, ingestion warnings)
// share: the real service, headless Chromium with a signed-in person who owns a project in the
// eu region, events sent through ingest with the project's key, the region API called with the
// console's own region token, and the hostile values every page must show as text.
import { expect } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { strongPassword } from "../../helpers/accounts.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { openConsoleTab, waitForPage, type ConsoleTab } from "../../helpers/console-browser.ts";
import { startTestService, type TestService } from "../../helpers/service.ts";
import { nativeBody, nativeEvent, ok, postIngest, type NativeEvent } from "../../ingest/helpers.ts";

export { nativeEvent, type NativeEvent };

/** Markup, a script URL and a script end tag: each must show literally and run nothing. */
export const hostile = {
  markup: "<img src=x onerror=window.__pwned=1>",
  scriptUrl: "javascript:alert(1)",
  scriptEnd: "</script><script>window.__pwned=1</script>",
} as const;

export interface DataPagesFixture {
  service: TestService;
  browser: Browser;
  tab: ConsoleTab;
  projectId: string;
  /** The production environment's public key. */
  key: string;
  /** Opens a page of the project (a path under /projects/{id}) and waits for its heading. */
  open(path: string, title: string): Promise<Page>;
  /** Sends native events through ingest; each must be accepted. */
  send(events: NativeEvent[]): Promise<void>;
  /** Calls the region API as the console does, with its region token for production. */
  region(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

/** `env`: the service's settings beyond the test defaults (REPLAY_FLUSH_INTERVAL_MS for the replay pages). */
export async function startDataPages(projectName: string, env: Record<string, string> = {}): Promise<DataPagesFixture> {
  const service = await startTestService(env);
  const browser = await launchChromium();
  const tab = await openConsoleTab(browser);
  const { request } = tab.context;
  const signedUp = await request.post(`${service.url}/app/auth/signup`, { data: { email: "dana@example.com", name: "Dana", password: strongPassword } });
  expect(signedUp.status()).toBe(201);
  const orgId = (await signedUp.json()).orgs[0].id;
  const created = await request.post(`${service.url}/app/orgs/${orgId}/projects`, { data: { name: projectName, region: "eu" } });
  expect(created.status()).toBe(201);
  const { project, public_keys } = await created.json();
  const key = public_keys.find((candidate: { environment: string }) => candidate.environment === "production").key;
  return {
    service,
    browser,
    tab,
    projectId: project.id,
    key,
    async open(path, title) {
      await tab.page.goto(`${service.url}/projects/${project.id}${path}`);
      await waitForPage(tab.page, title);
      return tab.page;
    },
    async send(events) {
      const reply = await postIngest(service.url, nativeBody(key, events));
      expect([reply.status, reply.body]).toEqual([200, ok(events.length)]);
    },
    async region(method, path, body) {
      const issued = await request.post(`${service.url}/app/projects/${project.id}/region-token`, { data: { environment: "production" } });
      expect(issued.status()).toBe(200);
      const { token, region_api_url } = await issued.json();
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) headers["content-type"] = "application/json";
      const response = await fetch(`${region_api_url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: response.status, body: await response.json() };
    },
    async close() {
      await browser.close();
      await service.close();
    },
  };
}

/** The page's globals a test function reads (the tests are type-checked without the DOM's types). */
export type PageGlobals = { document: { querySelectorAll(selector: string): { length: number } }; location: { search: string } };

/** Waits until `selector` matches exactly `count` elements. A function, not a string: the console's CSP forbids eval. */
export const waitForCount = (page: Page, selector: string, count: number) =>
  page.waitForFunction(({ selector, count }) => (globalThis as unknown as PageGlobals).document.querySelectorAll(selector).length === count, { selector, count });

/** Nothing of the hostile values ran or became markup: no image made, no global set. */
export async function expectNothingRan(page: Page): Promise<void> {
  expect(await page.locator("img").count()).toBe(0);
  expect(await page.locator("main script").count()).toBe(0);
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
}
