// Steps the Mail and Messaging page tests share: connecting with a key, opening a tab, reading
// a table's rows, and checking that no hostile text ran.
import { expect } from "bun:test";
import type { Page } from "playwright-core";

/** The service's message as the page shows it: a sentence. */
export const sentence = (message: string) => {
  const capitalised = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
};

/** Each body row of the table at `selector`, as its cells' texts. */
export const rowTexts = (page: Page, selector: string) =>
  page.locator(`${selector} tbody tr`).evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll("td")].map((cell) => cell.textContent)));

/** No hostile text ran: no flag it sets, no dialog it opens, no image or script it became in the page. */
export async function expectNothingRan(page: Page, dialogs: string[]): Promise<void> {
  expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(dialogs).toEqual([]);
  expect(await page.locator("main img, main script").count()).toBe(0);
}

/** Pastes `key` in the field labelled `label` and connects. */
export async function connectWith(page: Page, label: string, key: string): Promise<void> {
  await page.getByLabel(label).fill(key);
  await page.getByRole("button", { name: "Connect" }).click();
}

export const openTab = (page: Page, name: string) => page.getByRole("tab", { name }).click();
