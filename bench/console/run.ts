// bench/console: the console's initial JavaScript (gzipped bytes a first visit loads) and the
// time for a 12-tile dashboard over 1M events to render every tile (each its chart) in headless
// Chromium, with the same twelve region requests sent straight from Bun in the same run as the
// baseline (what
// the console adds on top of the engine). Each run restarts the service on the seeded data, so
// "cold" means no result cache and no decoded columns; "warm" reloads hit the result cache.
//   bun bench/console/run.ts   (BENCH_RUNS=3 BENCH_EVENTS=1000000 BENCH_RELOADS=5)
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { concurrentQueriesPerProjectMax } from "../../server/region/query-service.ts";
import { buildConsoleBundle, initialScriptGzipBytes, initialScriptGzipBytesMax } from "../../server/console/bundle.ts";
import { launchChromium } from "../../test/helpers/chromium.ts";
import type { PageDocument } from "../../test/helpers/console-browser.ts";
import { spawnService, type ServiceProcess } from "../../test/helpers/process.ts";
import { fmt, median } from "../figures.ts";
import { writeResultsSection } from "../results.ts";
import { dashboardInsights } from "./dashboard-insights.ts";
import { ConsoleClient } from "../../test/helpers/client.ts";
import { seedDashboard, type SeededDashboard } from "./seed.ts";

const runs = Number(process.env.BENCH_RUNS ?? 3);
const events = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const reloads = Number(process.env.BENCH_RELOADS ?? 5);
const seed = 42;
const tiles = dashboardInsights.length;
const renderTimeoutMs = 300_000;

interface TileRequest {
  method: string;
  url: string;
  body: { query: object; include_sql: boolean; refresh: boolean };
}

interface RunFigures {
  apiColdMs: number;
  consoleColdMs: number;
  consoleColdScriptBytes: number;
  consoleWarmMs: number;
  apiWarmMs: number;
}

const dataDir = mkdtempSync(join(tmpdir(), "bench-console-"));
const startService = () => spawnService({ DATA_DIR: dataDir, REGIONS: "eu" });

async function stop(service: ServiceProcess): Promise<void> {
  service.child.kill("SIGTERM");
  await service.child.exited;
}

/** The dashboard's twelve region requests, as the console sends them, and a token to send them with. */
async function tileRequests(baseUrl: string, seeded: SeededDashboard): Promise<{ requests: TileRequest[]; token: string }> {
  const client = new ConsoleClient(baseUrl);
  client.cookie = `${seeded.cookie.name}=${seeded.cookie.value}`;
  const dashboard = await client.send<{ tiles: { request: TileRequest | null }[] }>("GET", `/app/projects/${seeded.projectId}/dashboards/${seeded.dashboardId}`);
  const { token } = await client.send<{ token: string }>("POST", `/app/projects/${seeded.projectId}/region-token`, { environment: "production" });
  return { requests: dashboard.tiles.map(({ request }) => request!), token };
}

/**
 * Sends the twelve requests as the console does: as many at once as the region runs for a
 * project (concurrentQueriesPerProjectMax; the next would be refused with 429), each next one
 * as soon as one answers. Times them all.
 */
async function sendAll({ requests, token }: { requests: TileRequest[]; token: string }, refresh: boolean): Promise<number> {
  const started = performance.now();
  const queue = [...requests];
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const response = await fetch(next.url, {
        method: next.method,
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ ...next.body, refresh }),
      });
      if (!response.ok) throw new Error(`${next.url} answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: concurrentQueriesPerProjectMax }, worker));
  return performance.now() - started;
}

/** Opens (or reloads) the dashboard and waits for every tile's chart to be drawn; a failed tile ends the benchmark. */
async function renderDashboard(page: import("playwright-core").Page, open: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await open();
  // A function, not a string: the console's CSP refuses the eval a string would need.
  await page.waitForFunction(
    (expected) => {
      const { document } = globalThis as unknown as { document: PageDocument };
      // Drawn: the chart's canvas (or, for retention, its heat table) is in every tile.
      const drawn = document.querySelectorAll("[data-tile-state=ready] .tile-chart canvas, [data-tile-state=ready] .tile-chart table").length;
      return drawn >= expected || document.querySelector("[data-tile-state=failed]") !== null;
    },
    tiles,
    { timeout: renderTimeoutMs, polling: 10 },
  );
  const elapsed = performance.now() - started;
  const failed = await page.locator("[data-tile-state=failed]").allTextContents();
  if (failed.length > 0) throw new Error(`tiles failed: ${failed.join(" | ")}`);
  return elapsed;
}

async function measureRun(browser: Browser, seeded: SeededDashboard): Promise<RunFigures> {
  let service = await startService();
  const apiColdMs = await sendAll(await tileRequests(service.url, seeded), true);
  await stop(service);

  service = await startService();
  try {
    // Charts drawn at once rather than animated in, so "rendered" means drawn.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: "reduce" });
    await context.addCookies([{ ...seeded.cookie, url: service.url }]);
    const page = await context.newPage();
    // Bytes as sent (gzipped), read once each response is complete.
    const scriptSizes: Promise<number>[] = [];
    page.on("requestfinished", (request) => {
      if (request.url().endsWith(".js")) scriptSizes.push(request.sizes().then((sizes) => sizes.responseBodySize));
    });
    const dashboardUrl = `${service.url}/projects/${seeded.projectId}/dashboards/${seeded.dashboardId}`;
    const consoleColdMs = await renderDashboard(page, () => page.goto(dashboardUrl));
    const consoleColdScriptBytes = (await Promise.all(scriptSizes)).reduce((sum, bytes) => sum + bytes, 0);
    const warm: number[] = [];
    for (let reload = 0; reload < reloads; reload++) warm.push(await renderDashboard(page, () => page.reload()));
    await context.close();
    const requests = await tileRequests(service.url, seeded);
    const apiWarm: number[] = [];
    for (let round = 0; round < reloads; round++) apiWarm.push(await sendAll(requests, false));
    return { apiColdMs, consoleColdMs, consoleColdScriptBytes, consoleWarmMs: median(warm), apiWarmMs: median(apiWarm) };
  } finally {
    await stop(service);
  }
}

const loadAtStart = loadavg()[0]!;
const bundle = await buildConsoleBundle();
const initialBytes = initialScriptGzipBytes(bundle);
const browser = await launchChromium();
const figures: RunFigures[] = [];
let seedSeconds = 0;
try {
  const seeding = await startService();
  const seedStarted = performance.now();
  let seeded: SeededDashboard;
  try {
    seeded = await seedDashboard(seeding.url, events, seed);
    seedSeconds = (performance.now() - seedStarted) / 1000;
  } finally {
    await stop(seeding);
  }
  for (let run = 1; run <= runs; run++) {
    figures.push(await measureRun(browser, seeded));
    console.log(`run ${run}:`, figures.at(-1));
  }
} finally {
  await browser.close();
  rmSync(dataDir, { recursive: true, force: true });
}

const pick = (name: keyof RunFigures) => median(figures.map((run) => run[name]));
const kib = (bytes: number) => `${fmt(bytes / 1024, 1)} KB`;
const cpu = cpus()[0]?.model.trim() ?? "unknown CPU";
const section = `## Console (bench/console) — ${new Date().toISOString().slice(0, 10)}

Machine: ${cpus().length} cores (${cpu}), ${fmt(totalmem() / 2 ** 30)} GiB RAM, Bun ${Bun.version}, Debian's Chromium (headless, 1280x800);
load average ${fmt(loadAtStart, 1)} when the run started, ${fmt(loadavg()[0]!, 1)} when it ended; browser, service and client share the machine.
Data: ${fmt(events)} events of the product dataset (test/helpers/product-dataset.ts, seed ${seed}, 30 days), sent through ingest
in ${fmt(seedSeconds, 1)} s with the twelve insights and the dashboard (bench/console/dashboard-insights.ts: every insight kind).
Each of ${runs} runs restarts the service on that data twice: once for the baseline's cold round, once for the console's.
Figures are the median over the runs (warm figures: each run's median of ${reloads} rounds).

| measure | value |
|---|---|
| initial JavaScript, gzipped (budget ${kib(initialScriptGzipBytesMax)}) | ${kib(initialBytes)} |
| JavaScript the first dashboard visit loads (gzipped, with the chart library) | ${kib(pick("consoleColdScriptBytes"))} |
| 12 tiles rendered, first open after a restart (console, cold) | ${fmt(pick("consoleColdMs"))} ms |
| baseline: the 12 region requests from Bun, ${concurrentQueriesPerProjectMax} at a time as the console sends them, after a restart (cold) | ${fmt(pick("apiColdMs"))} ms |
| 12 tiles rendered, reload (console, result cache warm) | ${fmt(pick("consoleWarmMs"))} ms |
| baseline: the 12 region requests from Bun, ${concurrentQueriesPerProjectMax} at a time, result cache warm | ${fmt(pick("apiWarmMs"))} ms |
`;
writeResultsSection("Console (bench/console)", section);
console.log(section);
