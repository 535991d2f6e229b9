// The browser SDK's test bench: the real service with a project and its public key, headless
// Chromium, a customer's site on its own origin whose pages load the SDK from the service with
// a script tag (as docs/sdk.md shows), and what the service stored read back through the region API.
import { expect } from "bun:test";
import { gunzipSync } from "node:zlib";
import type { Browser, Page, Request } from "playwright-core";
import { launchChromium } from "../../helpers/chromium.ts";
import { startDedicatedService, type DedicatedService } from "../../ingest/helpers.ts";
import { createToken, regionTokenFor } from "../../helpers/accounts.ts";
import { bearer, call } from "../../helpers/client.ts";
import type { RegionEvent, RegionPerson } from "../../drop-in/region-reader.ts";

/** A stored event as the region API answers it, with the fields the SDK sends that RegionEvent leaves out. */
export type StoredEvent = RegionEvent & { window_id: string | null; consent: string; $set_once: Record<string, unknown> | null };

/** Reads persons and their events through the region API, without asserting (tests poll it). */
export interface StoredReader {
  personOf(distinctId: string): Promise<RegionPerson | null>;
  /** The person's events, oldest first. */
  eventsOf(person: RegionPerson): Promise<StoredEvent[]>;
}

export interface SitePage {
  title?: string;
  body?: string;
  /** Runs after the SDK's script tag. */
  script: string;
  /** No classic script tag: `script` runs as an ES module (and imports /sdk/v1/analytics.mjs itself). */
  module?: boolean;
}

export interface SdkBench {
  dedicated: DedicatedService;
  reader: StoredReader;
  browser: Browser;
  ingestUrl: string;
  /** Serves `pages` (by path) on a new origin; the pages load /sdk/v1/analytics.js from the service. */
  site(pages: Record<string, SitePage>): { url: string; stop(): void };
  dispose(): Promise<void>;
}

export async function startSdkBench(): Promise<SdkBench> {
  const dedicated = await startDedicatedService();
  const { secret } = await createToken(dedicated.owner, ["persons:read", "persons.pii"]);
  const token = await regionTokenFor(dedicated.service, secret, dedicated.project.id, ["persons:read", "persons.pii"]);
  const get = async (path: string) => {
    const reply = await call(dedicated.service.url, "GET", `/region/eu${path}`, { headers: bearer(token) });
    if (reply.status !== 200) throw new Error(`GET ${path} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const reader: StoredReader = {
    async personOf(distinctId) {
      const { results } = await get(`/persons?search=${encodeURIComponent(distinctId)}&limit=1000`);
      return (results as RegionPerson[]).find((person) => person.distinct_ids.includes(distinctId)) ?? null;
    },
    async eventsOf(person) {
      const { results } = await get(`/persons/${person.id}/events?limit=1000`);
      return (results as StoredEvent[]).reverse();
    },
  };
  const browser = await launchChromium();
  const servers: { stop(force: boolean): void }[] = [];
  return {
    dedicated,
    reader,
    browser,
    ingestUrl: `${dedicated.service.url}/ingest/eu`,
    site(pages) {
      const html = (page: SitePage) => `<!doctype html><html><head><title>${page.title ?? "Acme"}</title>
${page.module ? "" : `<script src="${dedicated.service.url}/sdk/v1/analytics.js"></script>`}</head>
<body>${page.body ?? "<h1>Acme</h1>"}<script${page.module ? ' type="module"' : ""}>${page.script}</script></body></html>`;
      const server = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch(request) {
          const page = pages[new URL(request.url).pathname];
          return page ? new Response(html(page), { headers: { "content-type": "text/html; charset=utf-8" } }) : new Response("not found", { status: 404 });
        },
      });
      servers.push(server);
      return { url: server.url.href.replace(/\/$/, ""), stop: () => server.stop(true) };
    },
    async dispose() {
      for (const server of servers) server.stop(true);
      await browser.close();
      await dedicated.dispose();
    },
  };
}

/** The events of the person one of whose ids is `distinctId`, once `count` are stored (oldest first); fails past the deadline. */
export async function storedEventsOf(reader: StoredReader, distinctId: string, count: number, deadlineMs = 20_000): Promise<StoredEvent[]> {
  let events: StoredEvent[] = [];
  await until(`${count} events of ${distinctId}`, async () => {
    const person = await reader.personOf(distinctId);
    events = person ? await reader.eventsOf(person) : [];
    return events.length >= count;
  }, deadlineMs).catch(() => undefined);
  expect([distinctId, events.length]).toEqual([distinctId, count]);
  return events;
}

/** The JSON bodies the page posted to a path of the ingest (gzip bodies decompressed), in order. */
export function postedBodies(page: Page, path: RegExp): { bodies: unknown[]; requests: Request[] } {
  const bodies: unknown[] = [];
  const requests: Request[] = [];
  page.on("request", (request) => {
    if (request.method() !== "POST" || !path.test(new URL(request.url()).pathname)) return;
    requests.push(request);
    const buffer = request.postDataBuffer();
    if (!buffer) return;
    const bytes = buffer[0] === 0x1f && buffer[1] === 0x8b ? gunzipSync(buffer) : buffer;
    bodies.push(JSON.parse(new TextDecoder().decode(bytes)));
  });
  return { bodies, requests };
}

/** Resolves when `condition` holds, checking every 50 ms until `deadlineMs` passes. */
export async function until<T>(what: string, condition: () => T | Promise<T>, deadlineMs = 20_000): Promise<Exclude<T, false | null | undefined | 0 | "">> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await condition();
    if (value) return value as Exclude<T, false | null | undefined | 0 | "">;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}
