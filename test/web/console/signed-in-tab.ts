// A console tab signed in as a person made through the API (test/helpers/accounts.ts), so a
// test can give people roles first and then watch each of them use the console.
import { expect } from "bun:test";
import type { Browser } from "playwright-core";
import { strongPassword, type SignedUpUser } from "../../helpers/accounts.ts";
import { openConsoleTab, type ConsoleTab } from "../../helpers/console-browser.ts";
import type { TestService } from "../../helpers/service.ts";

export async function signedInTab(browser: Browser, service: TestService, user: SignedUpUser): Promise<ConsoleTab> {
  const tab = await openConsoleTab(browser);
  const reply = await tab.context.request.post(`${service.url}/app/auth/login`, { data: { email: user.email, password: strongPassword } });
  expect(reply.status()).toBe(200);
  return tab;
}

/** The API's answer to a console call made with the tab's session. */
export async function apiAs(tab: ConsoleTab, service: TestService, method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await tab.context.request.fetch(`${service.url}${path}`, { method, ...(body === undefined ? {} : { data: body }) });
  const text = await response.text();
  return { status: response.status(), body: text === "" ? undefined : JSON.parse(text) };
}
