// bench/ingest/wide-keys.ts: what events with many distinct property keys cost the service.
// Storage makes a column per property key, and Arrow keeps a column dense (a slot per row
// whether the row sets the key or not), so keys set on few rows once made buffers, seal files
// and merges grow with rows x keys: one public key sending valid events under the rate limit
// took the service past 1.8 GB. Each shape here runs on a fresh service for BENCH_SECONDS
// (default 90; merges of level-0 parts start after about 30 s): one project sends the shape at
// BENCH_RATE events/s (default 4,500, under the 5,000 limit) while another sends ordinary
// events at 100 a second, whose acknowledgement latency is what other tenants see. The
// baseline, in the same run, sends the generator's ordinary events as the first project, and a
// control sends as many values as the widest shape under the same keys every time. A
// service whose RSS passes 2 GiB is stopped and reported as such. Writes the "Ingest: many
// property keys" section of bench/RESULTS.md (all shapes), or only prints (BENCH_SHAPES, a
// list of shape numbers from 0, to run some: as at an earlier commit, to compare).
//   bun bench/ingest/wide-keys.ts            (BENCH_SECONDS=90 BENCH_RATE=4500 BENCH_SHAPES=1,2)
import { cpus, totalmem } from "node:os";
import { eventTemplates } from "./generator.ts";
import { drive, type LoadResult } from "./load.ts";
import { rssBytes } from "../process-usage.ts";
import { writeResultsSection } from "../results.ts";
import { fmt } from "../figures.ts";
import { removeIngestService, startIngestService, stopAndCatchUp, type CatchUp } from "./service.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 90);
const attackRate = Number(process.env.BENCH_RATE ?? 4500);
const victimRate = 100;
const rssLimitBytes = 2 * 2 ** 30;
const rssSampleMs = 250;
const timestamp = new Date().toISOString();

/** The generator's events with `properties` replaced: template i gets properties(i). */
function templatesWith(count: number, properties: (i: number) => Record<string, unknown>): string[] {
  const base = JSON.parse(eventTemplates({ seed: 7, users: 10_000 }, 1, timestamp)[0]!) as Record<string, unknown>;
  return Array.from({ length: count }, (_, i) => JSON.stringify({ ...base, distinct_id: `user-${i % 10_000}`, properties: properties(i) }));
}

const shapes: { name: string; templates: () => string[] }[] = [
  { name: "baseline: the generator's events (11 keys each)", templates: () => eventTemplates({ seed: 42, users: 100_000 }, 20_000, timestamp) },
  { name: "one number per event, its key cycling through 500 names", templates: () => templatesWith(500, (i) => ({ [`k${i}`]: i })) },
  { name: "one number per event, 20,000 distinct keys", templates: () => templatesWith(20_000, (i) => ({ [`unique_${i}`]: i })) },
  {
    name: "200 keys per event, none repeated within 2,000 events",
    templates: () => templatesWith(2_000, (i) => Object.fromEntries(Array.from({ length: 200 }, (_, k) => [`w${i * 200 + k}`, k]))),
  },
  // Control for the shape above: as many values per event, but the same keys on every event (wide, not sparse).
  {
    name: "control: 200 keys per event, the same 200 on every event",
    templates: () => templatesWith(2_000, (i) => Object.fromEntries(Array.from({ length: 200 }, (_, k) => [`w${k}`, i * 200 + k]))),
  },
  { name: "one number per event, 1,000-character keys cycling through 500 names", templates: () => templatesWith(500, (i) => ({ [`${"x".repeat(990)}${String(i).padStart(10, "0")}`]: i })) },
];

interface ShapeResult {
  name: string;
  attack: LoadResult;
  victim: LoadResult;
  peakRssBytes: number;
  /** Seconds into the load when RSS passed the limit, or null. */
  exceededAt: number | null;
  catchUp: CatchUp | null;
}

async function runShape(name: string, templates: string[]): Promise<ShapeResult> {
  const service = await startIngestService("server/main.ts", 2);
  const pid = service.server.child.pid;
  const started = performance.now();
  let peakRssBytes = rssBytes(pid);
  let exceededAt: number | null = null;
  const sampler = setInterval(() => {
    const rss = rssBytes(pid);
    peakRssBytes = Math.max(peakRssBytes, rss);
    if (rss > rssLimitBytes && exceededAt === null) {
      exceededAt = (performance.now() - started) / 1000;
      // Once killed and reaped, the process has no /proc entry to read.
      clearInterval(sampler);
      service.server.child.kill("SIGKILL");
    }
  }, rssSampleMs);
  try {
    const [attack, victim] = await Promise.all([
      drive({ url: service.batchUrl, apiKeys: [service.apiKeys[0]!], templates, seconds, connections: 4, batchSize: 100, targetRate: attackRate }),
      drive({
        url: service.batchUrl, apiKeys: [service.apiKeys[1]!], templates: eventTemplates({ seed: 9, users: 1_000 }, 1_000, timestamp),
        seconds, connections: 1, batchSize: 10, targetRate: victimRate,
      }),
    ]);
    clearInterval(sampler);
    const catchUp = exceededAt === null ? await stopAndCatchUp(service) : null;
    return { name, attack, victim, peakRssBytes, exceededAt, catchUp };
  } finally {
    clearInterval(sampler);
    await removeIngestService(service);
  }
}

const chosen = process.env.BENCH_SHAPES ? process.env.BENCH_SHAPES.split(",").map((index) => shapes[Number(index)]!) : shapes;
const results: ShapeResult[] = [];
for (const shape of chosen) {
  const result = await runShape(shape.name, shape.templates());
  results.push(result);
  console.log(
    `${shape.name}: acknowledged ${fmt(result.attack.eventsPerSecond)} events/s (errors ${JSON.stringify(result.attack.errorStatuses)}), ` +
      `other project p50/p99 ${fmt(result.victim.p50Ms, 1)}/${fmt(result.victim.p99Ms, 1)} ms, peak RSS ${fmt(result.peakRssBytes / 2 ** 20)} MiB` +
      (result.exceededAt === null ? "" : `, passed ${fmt(rssLimitBytes / 2 ** 30)} GiB after ${fmt(result.exceededAt, 1)} s`),
  );
}

const report = `## Ingest: many property keys (bench/ingest/wide-keys.ts) — ${new Date().toISOString().slice(0, 10)}

Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown CPU"}), ${fmt(totalmem() / 2 ** 30)} GiB RAM, Bun ${Bun.version}; the load driver runs on the same machine.
Each shape ran on a fresh service for ${seconds} s: one project sent it at ${fmt(attackRate)} events/s (100-event batches), another sent ordinary
events at ${victimRate} a second (10-event batches), whose latency is what other tenants see. Then the service was stopped and the compaction
it had not done was finished in another process. A service past ${fmt(rssLimitBytes / 2 ** 30)} GiB of RSS is stopped. The baseline ran in the same run.

| shape | acknowledged events/s; failed requests | other project's p50 / p99 ms | server peak RSS | stored after compaction |
|---|---|---|---|---|
${results
  .map((result) => {
    const rss = `${fmt(result.peakRssBytes / 2 ** 20)} MiB${result.exceededAt === null ? "" : ` (passed the limit after ${fmt(result.exceededAt, 1)} s)`}`;
    const stored = result.catchUp ? `${fmt(result.catchUp.storedEvents)} events, ${fmt(result.catchUp.bytes / result.catchUp.storedEvents, 1)} bytes each` : "-";
    return `| ${result.name} | ${fmt(result.attack.eventsPerSecond)}; ${fmt(result.attack.errors)} | ${fmt(result.victim.p50Ms, 1)} / ${fmt(result.victim.p99Ms, 1)} | ${rss} | ${stored} |`;
  })
  .join("\n")}
`;
if (chosen === shapes) writeResultsSection("Ingest: many property keys", report);
console.log(report);
