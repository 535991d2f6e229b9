// What the dashboards' browser tests start from, built through the public APIs only: a person
// signed up in the browser's own context (so the page and the test share the session), a
// project, events sent to the region's ingest with the project's key, and saved insights.
import { expect } from "bun:test";
import type { APIRequestContext, Page } from "playwright-core";
import { strongPassword } from "../../helpers/accounts.ts";
import type { TestService } from "../../helpers/service.ts";

export const hostileEvent = "<img src=x onerror=window.__pwned=1>";
export const hostileBrowser = "<b onmouseover=window.__pwned=2>Safari</b>";

const minute = 60_000;
const day = 24 * 60 * minute;

export interface Project {
  id: string;
  key: string;
}

/** JSON from the console API with the browser context's session; the status is checked. */
export async function api(request: APIRequestContext, service: TestService, method: string, path: string, body?: unknown, status = method === "POST" && !path.endsWith("/layout") ? 201 : 200): Promise<any> {
  const response = await request.fetch(`${service.url}${path}`, { method, data: body === undefined ? undefined : body });
  const text = await response.text();
  expect({ path, status: response.status(), text: response.status() === status ? "" : text }).toEqual({ path, status, text: "" });
  return text ? JSON.parse(text) : undefined;
}

export async function signUpInBrowser(request: APIRequestContext, service: TestService, email: string): Promise<void> {
  const signedUp = await request.post(`${service.url}/app/auth/signup`, { data: { email, name: "Dana", password: strongPassword } });
  expect(signedUp.status()).toBe(201);
}

export async function createProject(request: APIRequestContext, service: TestService, name: string): Promise<Project> {
  const me = await api(request, service, "GET", "/app/me");
  const created = await api(request, service, "POST", `/app/orgs/${me.orgs[0].id}/projects`, { name, region: "eu", timezone: "Europe/Berlin", currency: "EUR" });
  const key = created.public_keys.find((candidate: { environment: string }) => candidate.environment === "production").key;
  return { id: created.project.id, key };
}

interface SeedEvent {
  event: string;
  person: string;
  at: number;
  properties?: Record<string, unknown>;
}

/**
 * Page views in Chrome, Firefox and a browser with a hostile name, sign-ups and purchases,
 * and an event with a hostile name: some three days ago, some in the last hour, so a
 * dashboard range of the last 24 hours changes every number.
 */
export function seedEvents(now = Date.now()): SeedEvent[] {
  const old = now - 3 * day;
  const recent = now - 30 * minute;
  const visit = (person: string, at: number, browser: string): SeedEvent => ({ event: "$pageview", person, at, properties: { $browser: browser } });
  return [
    visit("p1", old, "Chrome"), { event: "signed_up", person: "p1", at: old + minute }, { event: "purchase", person: "p1", at: old + 2 * minute },
    visit("p2", old, "Chrome"), { event: "signed_up", person: "p2", at: old + minute },
    visit("p3", old, "Firefox"), { event: "signed_up", person: "p3", at: old + minute },
    visit("p5", old, "Firefox"),
    visit("p6", old, hostileBrowser), visit("p7", old + minute, hostileBrowser),
    { event: hostileEvent, person: "p1", at: old + 3 * minute },
    visit("p4", recent, "Chrome"), { event: "signed_up", person: "p4", at: recent + minute }, { event: "purchase", person: "p4", at: recent + 2 * minute },
    visit("p8", recent, "Chrome"), visit("p9", recent + minute, "Chrome"),
    visit("p10", recent, "Firefox"),
    { event: hostileEvent, person: "p4", at: recent + 3 * minute },
  ];
}

export async function sendEvents(service: TestService, key: string, events: SeedEvent[]): Promise<void> {
  const batch = events.map(({ event, person, at, properties }) => ({
    uuid: Bun.randomUUIDv7(),
    event,
    timestamp: new Date(at).toISOString(),
    distinct_id: person,
    properties: properties ?? {},
    lib: { name: "import", version: "1.0.0" },
  }));
  const response = await fetch(`${service.url}/ingest/eu/batch`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ api_key: key, batch }) });
  expect(await response.json()).toEqual({ accepted: batch.length, rejected: [], quota_limited: [] });
}

export const trendsQuery = {
  ir_version: 1,
  date_range: { from: "-30d" },
  insight: { kind: "trends", interval: "day", series: [{ event: "$pageview" }, { event: hostileEvent }], breakdown: { type: "event", property: "$browser" } },
};
export const funnelQuery = {
  ir_version: 1,
  date_range: { from: "-30d" },
  insight: { kind: "funnel", series: [{ event: "$pageview" }, { event: "signed_up" }, { event: "purchase" }] },
};

export const saveInsight = (request: APIRequestContext, service: TestService, projectId: string, name: string, query: unknown) =>
  api(request, service, "POST", `/app/projects/${projectId}/insights`, { name, query });

/** POST {region}/query as the console would send it, with a token from /app/projects/{id}/region-token. */
export async function queryRegion(request: APIRequestContext, service: TestService, projectId: string, tileRequest: { url: string; body: unknown }): Promise<any> {
  const { token, region_api_url } = await api(request, service, "POST", `/app/projects/${projectId}/region-token`, undefined, 200);
  expect(tileRequest.url).toBe(`${region_api_url}/query`);
  const response = await fetch(tileRequest.url, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(tileRequest.body) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: unknown }).result;
}

// The tile's numbers as the console writes them (en-US, which headless Chromium and Bun use).
const plain = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });
const number = (value: number | null | undefined) => (value === null || value === undefined ? "–" : plain.format(value));

/** The rows a trends tile shows for this answer: each series' label, total and last value. */
export function trendsRows(result: any): string[][] {
  const last = result.buckets.length - 1;
  return result.rows.map((row: any) => {
    let label = row.event ?? "All events";
    if (row.math !== "total") label += ` (${row.math})`;
    if (row.breakdown_other) label += " · Other";
    else if (row.breakdown_value !== undefined) label += ` · ${row.breakdown_value ?? "(none)"}`;
    return [label, number(row.total), number(row.values[last])];
  });
}

/** The rows a funnel tile shows: each step's persons and conversion from the first step. */
export function funnelRows(result: any): string[][] {
  return result.steps.map((step: any) => [`${step.step + 1}. ${step.event}`, number(step.count), step.conversion_from_first === null ? "–" : percent.format(step.conversion_from_first)]);
}

/** A tile's numbers as shown: its chart comes first, its numbers on request. */
export async function shownTileRows(page: Page, tileId: string): Promise<string[][]> {
  const tile = page.locator(`[data-tile-id="${tileId}"]`);
  const toNumbers = tile.getByRole("button", { name: "Show the numbers" });
  if (await toNumbers.count()) await toNumbers.click();
  await tile.locator("table.tile-numbers").waitFor();
  return page.$$eval(`[data-tile-id="${tileId}"] table.tile-numbers tbody tr`, (rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent ?? "")));
}
