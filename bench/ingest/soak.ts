// bench/ingest/soak.ts: whether the 60 s figures of run.ts hold over a long load. One service
// takes full load for BENCH_SOAK_MINUTES minutes (default 10), reported minute by minute
// (acknowledged rate, p50/p99 latency, peak RSS, disk); then it stops, the compaction it had not
// done yet is timed, and the whole soak's sustained rate is set against the parse-only ceiling
// measured first in the same run with the same driver. As data pile up, compaction merges
// climb levels and the person directory grows, so a figure that only holds for a minute
// shows here. Writes the "Ingest soak" section of bench/RESULTS.md.
//   bun bench/ingest/soak.ts            (BENCH_SOAK_MINUTES=10 BENCH_CONNECTIONS=32 BENCH_PROJECTS=100)
import { statSync, readdirSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { eventTemplates } from "./generator.ts";
import { drive, type LoadResult } from "./load.ts";
import { sampleRssPeak } from "../process-usage.ts";
import { writeResultsSection } from "../results.ts";
import { fmt, median } from "../figures.ts";
import { measureReference, removeIngestService, startIngestService, stopAndCatchUp, type LoadShape } from "./service.ts";

const minutes = Number(process.env.BENCH_SOAK_MINUTES ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const projects = Number(process.env.BENCH_PROJECTS ?? 100);
const windowSeconds = 60;
const shape: LoadShape = {
  templates: eventTemplates({ seed: 42, users: 100_000 }, 20_000, new Date().toISOString()),
  seconds: windowSeconds,
  connections,
  batchSize: 100,
};

/** Bytes of every file under `path` (a file that storage removes while it is listed counts as nothing). */
function diskBytes(path: string): number {
  return readdirSync(path, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((sum, entry) => sum + (statSync(join(entry.parentPath, entry.name), { throwIfNoEntry: false })?.size ?? 0), 0);
}

interface Minute {
  load: LoadResult;
  peakRssBytes: number;
  /** The region's files at the end of the minute: WAL, segments and Parquet. */
  diskBytes: number;
}

const ceiling = await measureReference("bench/ingest/parse-only-server.ts", shape);
console.log(`ceiling: ${fmt(ceiling.load.eventsPerSecond)} events/s`);

const service = await startIngestService("server/main.ts", projects);
const soak: Minute[] = [];
const rssPeak = sampleRssPeak(service.server.child.pid);
try {
  for (let minute = 1; minute <= minutes; minute++) {
    rssPeak.restart();
    const load = await drive({ ...shape, url: service.batchUrl, apiKeys: service.apiKeys });
    const result = { load, peakRssBytes: rssPeak.bytes(), diskBytes: diskBytes(join(service.dataDir, "eu")) };
    soak.push(result);
    console.log(
      `minute ${minute}: ${fmt(load.eventsPerSecond)} events/s, p50 ${fmt(load.p50Ms, 1)} ms, p99 ${fmt(load.p99Ms, 1)} ms, ` +
        `peak RSS ${fmt(result.peakRssBytes / 2 ** 20)} MiB, disk ${fmt(result.diskBytes / 2 ** 20)} MiB, errors ${load.errors} ${JSON.stringify(load.errorStatuses)}`,
    );
  }
  rssPeak.stop();
  const catchUp = await stopAndCatchUp(service);
  const events = soak.reduce((sum, minute) => sum + minute.load.events, 0);
  const loadSeconds = soak.reduce((sum, minute) => sum + minute.load.events / minute.load.eventsPerSecond, 0);
  const sustained = events / (loadSeconds + catchUp.seconds);
  const errors = soak.reduce((sum, minute) => sum + minute.load.errors, 0);
  const rates = soak.map((minute) => minute.load.eventsPerSecond);
  const peakRss = Math.max(...soak.map((minute) => minute.peakRssBytes));
  const report = `## Ingest soak (bench/ingest/soak.ts) — ${new Date().toISOString().slice(0, 10)}

Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown CPU"}), ${fmt(totalmem() / 2 ** 30)} GiB RAM, Bun ${Bun.version}; the load driver runs on the same machine.
One service under full load for ${minutes} minutes (bench/ingest's driver and generator: ${connections} connections, 100-event batches over ${projects} projects),
then stopped and the compaction it had not done timed; the parse-only ceiling was measured first, for ${windowSeconds} s, in the same run.
Sustained = acknowledged events / (load time + catch-up), over the whole soak.

| measure | result | target |
|---|---|---|
| parse-only ceiling (same run) | ${fmt(ceiling.load.eventsPerSecond)} events/s | baseline |
| sustained over ${minutes} minutes | ${fmt(sustained)} events/s (${fmt((100 * sustained) / ceiling.load.eventsPerSecond, 1)}% of ceiling) | at least 40% of ceiling |
| acknowledged per minute: median; lowest; first and last minute | ${fmt(median(rates))}; ${fmt(Math.min(...rates))}; ${fmt(rates[0]!)} and ${fmt(rates[rates.length - 1]!)} events/s | - |
| events acknowledged; failed requests | ${fmt(events)}; ${fmt(errors)} | - |
| catch-up after the load | ${fmt(catchUp.seconds, 1)} s | - |
| stored after compaction | ${fmt(catchUp.storedEvents)} events, ${fmt(catchUp.bytes / catchUp.storedEvents, 1)} bytes per event | at most 60 |
| server peak RSS, highest minute | ${fmt(peakRss / 2 ** 20)} MiB | under 1 GiB |

| minute | acknowledged events/s | p50 ms | p99 ms | peak RSS MiB | disk MiB (WAL, segments, Parquet) |
|---|---|---|---|---|---|
${soak.map((minute, index) => `| ${index + 1} | ${fmt(minute.load.eventsPerSecond)} | ${fmt(minute.load.p50Ms, 1)} | ${fmt(minute.load.p99Ms, 1)} | ${fmt(minute.peakRssBytes / 2 ** 20)} | ${fmt(minute.diskBytes / 2 ** 20)} |`).join("\n")}
`;
  writeResultsSection("Ingest soak", report);
  console.log(report);
} finally {
  rssPeak.stop();
  await removeIngestService(service);
}
