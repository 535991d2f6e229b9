// The web console in headless Chromium, as a person uses it: a fresh browser context per
// person (its own cookies), every page error, console error and Content-Security-Policy
// report collected so a test can require none, and screenshots of a page in both themes
// when CONSOLE_SCREENSHOTS names a directory to write them to.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";

export const screenshotDir = process.env.CONSOLE_SCREENSHOTS;
/** How long a test waits for something the console shows. */
export const shownWithinMs = 15_000;
export const consoleViewport = { width: 1280, height: 800 };

export interface ConsoleTab {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and errors the page logged, other than refused requests the test caused. */
  problems: string[];
  close(): Promise<void>;
}

/** Responses that are the console working as meant: it asks who is signed in, and gets 401 when no one is. */
const expectedRefusal = /Failed to load resource: the server responded with a status of (401|404)/;

export async function openConsoleTab(browser: Browser): Promise<ConsoleTab> {
  // Taking screenshots, charts (canvas, which the screenshot's `animations: "disabled"` cannot
  // reach) are drawn without their entry animation, so they are whole when taken.
  const context = await browser.newContext({ viewport: consoleViewport, colorScheme: "light", reducedMotion: screenshotDir ? "reduce" : "no-preference" });
  const page = await context.newPage();
  page.setDefaultTimeout(shownWithinMs);
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" && !expectedRefusal.test(message.text())) problems.push(`console error: ${message.text()}`);
  });
  return { context, page, problems, close: () => context.close() };
}

/** Saves the page as it is now in the light and the dark theme, as `<name>-light.png` and `<name>-dark.png`. */
export async function screenshotThemes(page: Page, name: string): Promise<void> {
  if (!screenshotDir) return;
  mkdirSync(screenshotDir, { recursive: true });
  // From the top: a page scrolled down would draw the sticky sidebar at its scroll offset.
  await page.evaluate("window.scrollTo(0, 0)");
  for (const theme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.waitForSelector(`html[data-theme="${theme}"]`);
    // Transitions are finished at once: the theme switch would otherwise be caught half-way.
    await page.screenshot({ path: join(screenshotDir, `${name}-${theme}.png`), fullPage: true, animations: "disabled" });
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.waitForSelector('html[data-theme="light"]');
}

export async function fillForm(page: Page, fields: Record<string, string>): Promise<void> {
  for (const [name, value] of Object.entries(fields)) await page.fill(`[name="${name}"]`, value);
}

/** Waits for the page whose heading is `title` (the console focuses each page's h1). */
export const waitForPage = (page: Page, title: string) => page.waitForSelector(`h1:text-is(${JSON.stringify(title)})`);

/** The page's document, for functions run in the page (this tsconfig has no DOM types). */
export interface PageDocument {
  querySelector(selector: string): { textContent: string | null } | null;
  querySelectorAll(selector: string): { length: number };
}
/**
 * Waits until `selector` matches exactly `count` elements (a page of a listing has arrived).
 * A function, not a string: the console's CSP refuses the eval a string would need.
 */
export const waitForCount = (page: Page, selector: string, count: number) =>
  page.waitForFunction(([wanted, size]) => (globalThis as unknown as { document: PageDocument }).document.querySelectorAll(wanted).length === size, [selector, count] as const);
