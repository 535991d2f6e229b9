// bench/ingest: durable ingest against the parse-only ceiling, in the same run with the same
// driver, and the durable floor (bench/ingest/durable-floor-server.ts: parse, then fdatasync the
// body before answering, nothing else) for what durability alone costs. Durable ingest is
// measured with its storage work included: after the load, the service stops and the
// compaction it had not done yet is timed, and the sustained rate is the acknowledged events
// over the load's time plus that catch-up. Then acknowledgement
// latency at half the sustained rate (a fresh service), bytes per event on disk after
// compaction, the server's peak RSS, CPU per event (in all and by thread, cpu-by-thread.ts),
// and durable ingest again without person resolution (bench/ingest/without-persons.ts), for
// its cost. Writes its section of bench/RESULTS.md.
//   bun bench/ingest/run.ts            (BENCH_SECONDS=60 BENCH_RUNS=3 BENCH_CONNECTIONS=32 BENCH_PROJECTS=100)
import { cpus, totalmem } from "node:os";
import { eventTemplates } from "./generator.ts";
import { drive, type LoadResult } from "./load.ts";
import { sampleRssPeak } from "../process-usage.ts";
import { cpuByThreadMeter, singleThreadGroups, threadGroups, totalMicros, type CpuByThread } from "./cpu-by-thread.ts";
import { writeResultsSection } from "../results.ts";
import { fmt, median } from "../figures.ts";
import { measureReference, removeIngestService, startIngestService, stopAndCatchUp, type LoadShape, type ReferenceResult } from "./service.ts";

const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const halfLoadSeconds = Number(process.env.BENCH_HALF_SECONDS ?? Math.max(10, Math.round(seconds / 3)));
const runs = Number(process.env.BENCH_RUNS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 32);
const batchSize = 100;
const projects = Number(process.env.BENCH_PROJECTS ?? 100);
const seed = 42;
const users = 100_000;
const templates = eventTemplates({ seed, users }, 20_000, new Date().toISOString());
const bytesPerTemplate = templates.reduce((sum, template) => sum + template.length, 0) / templates.length;
const shape: LoadShape = { templates, seconds, connections, batchSize };

interface DurableResult {
  load: LoadResult;
  /** Time to seal and compact what the service had not when the load ended. */
  catchUpSeconds: number;
  /** Acknowledged events per second of load plus catch-up. */
  sustainedEventsPerSecond: number;
  /**
   * CPU time per acknowledged event, all threads: the server's during the load plus the
   * catch-up's. Unlike the sustained rate, it does not depend on how far compaction had got
   * when the load ended, which varies from run to run on this shared machine.
   */
  cpuMicrosPerEvent: number;
  /** During the load only (the catch-up is another process). */
  cpuByThread: CpuByThread;
  peakRssBytes: number;
  storedEvents: number;
  bytesPerEvent: number;
}

/** Seconds of load at the target rate before a paced measurement, so its latencies are those of a warmed-up service. */
const warmUpSeconds = 5;

/** Durable ingest into the service `entry` runs, as fast as it answers or (after a warm-up) at `targetRate`. */
async function measureDurable(entry: string, loadSeconds: number, targetRate?: number): Promise<DurableResult> {
  const service = await startIngestService(entry, projects);
  const rssPeak = sampleRssPeak(service.server.child.pid);
  try {
    const target = { url: service.batchUrl, apiKeys: service.apiKeys, targetRate };
    if (targetRate !== undefined) await drive({ ...shape, ...target, seconds: warmUpSeconds });
    const cpuByThreadSince = cpuByThreadMeter(service.server.child.pid);
    const load = await drive({ ...shape, ...target, seconds: loadSeconds });
    const cpuByThread = cpuByThreadSince(load.events);
    rssPeak.stop();
    const { seconds: catchUpSeconds, cpuSeconds: catchUpCpuSeconds, storedEvents, bytes } = await stopAndCatchUp(service);
    if (load.errors > 0) console.log("failed requests by status:", load.errorStatuses);
    const sustainedEventsPerSecond = load.events / (load.events / load.eventsPerSecond + catchUpSeconds);
    const cpuMicrosPerEvent = totalMicros(cpuByThread) + (catchUpCpuSeconds * 1e6) / load.events;
    return { load, catchUpSeconds, sustainedEventsPerSecond, cpuMicrosPerEvent, cpuByThread, peakRssBytes: rssPeak.bytes(), storedEvents, bytesPerEvent: bytes / storedEvents };
  } finally {
    rssPeak.stop();
    await removeIngestService(service);
  }
}

const ceilings: ReferenceResult[] = [];
const floors: ReferenceResult[] = [];
const durables: DurableResult[] = [];
const halfLoads: LoadResult[] = [];
const withoutPersons: DurableResult[] = [];
for (let run = 1; run <= runs; run++) {
  const ceiling = await measureReference("bench/ingest/parse-only-server.ts", shape);
  console.log(`run ${run} ceiling: ${fmt(ceiling.load.eventsPerSecond)} events/s, p99 ${fmt(ceiling.load.p99Ms, 1)} ms, ${fmt(ceiling.cpuMicrosPerEvent, 2)} us of CPU per event`);
  const floor = await measureReference("bench/ingest/durable-floor-server.ts", shape);
  console.log(`run ${run} durable floor: ${fmt(floor.load.eventsPerSecond)} events/s, p99 ${fmt(floor.load.p99Ms, 1)} ms, ${fmt(floor.cpuMicrosPerEvent, 2)} us of CPU per event`);
  const durable = await measureDurable("server/main.ts", seconds);
  console.log(
    `run ${run} durable: acknowledged ${fmt(durable.load.eventsPerSecond)} events/s (p50 ${fmt(durable.load.p50Ms, 1)} ms, p99 ${fmt(durable.load.p99Ms, 1)} ms), ` +
      `catch-up ${fmt(durable.catchUpSeconds, 1)} s, sustained ${fmt(durable.sustainedEventsPerSecond)} events/s, ${fmt(durable.cpuMicrosPerEvent, 2)} us of CPU per event; ` +
      `${fmt(durable.bytesPerEvent, 1)} B/event on disk; peak RSS ${fmt(durable.peakRssBytes / 2 ** 20)} MiB; errors ${durable.load.errors}`,
  );
  const half = (await measureDurable("server/main.ts", halfLoadSeconds, durable.sustainedEventsPerSecond / 2)).load;
  console.log(`run ${run} half load: ${fmt(half.eventsPerSecond)} events/s, p50 ${fmt(half.p50Ms, 1)} ms, p99 ${fmt(half.p99Ms, 1)} ms, errors ${half.errors}`);
  const baseline = await measureDurable("bench/ingest/without-persons.ts", seconds);
  console.log(
    `run ${run} durable without person resolution: sustained ${fmt(baseline.sustainedEventsPerSecond)} events/s ` +
      `(catch-up ${fmt(baseline.catchUpSeconds, 1)} s), ${fmt(baseline.cpuMicrosPerEvent, 2)} us of CPU per event`,
  );
  ceilings.push(ceiling);
  floors.push(floor);
  durables.push(durable);
  halfLoads.push(half);
  withoutPersons.push(baseline);
}

const ceilingRate = median(ceilings.map((c) => c.load.eventsPerSecond));
const floorRate = median(floors.map((f) => f.load.eventsPerSecond));
const sustainedRate = median(durables.map((d) => d.sustainedEventsPerSecond));
const acknowledgedRate = median(durables.map((d) => d.load.eventsPerSecond));
const withoutPersonsRate = median(withoutPersons.map((d) => d.sustainedEventsPerSecond));
const cpuPerEvent = median(durables.map((d) => d.cpuMicrosPerEvent));
const withoutPersonsCpuPerEvent = median(withoutPersons.map((d) => d.cpuMicrosPerEvent));
/** Throughput lost to person resolution: by sustained rate, and by CPU per event (the rate when CPU bounds it). */
const personCostBySustained = (100 * (withoutPersonsRate - sustainedRate)) / withoutPersonsRate;
const personCostByCpu = 100 * (1 - withoutPersonsCpuPerEvent / cpuPerEvent);
const row = (name: string, value: string, target: string) => `| ${name} | ${value} | ${target} |`;
/** Each thread group's median over the runs, and the sum of those medians. */
const threadRow = (name: string, results: { cpuByThread: CpuByThread }[]) => {
  const medians = threadGroups.map((group) => median(results.map((result) => result.cpuByThread[group])));
  return `| ${name} | ${medians.map((value) => fmt(value, 2)).join(" | ")} | ${fmt(medians.reduce((sum, value) => sum + value, 0), 2)} |`;
};
/** Durable ingest's busiest single thread: the rate at which it alone would saturate bounds the service's. */
const [busiestThread, busiestThreadMicros] = singleThreadGroups
  .map((group) => [group, median(durables.map((d) => d.cpuByThread[group]))] as const)
  .reduce((busiest, candidate) => (candidate[1] > busiest[1] ? candidate : busiest));
const cpu = cpus()[0]?.model ?? "unknown CPU";
const report = `## bench/ingest — ${new Date().toISOString().slice(0, 10)}

Machine: ${cpus().length} cores (${cpu}), ${fmt(totalmem() / 2 ** 30)} GiB RAM, Bun ${Bun.version}; the load driver runs on the same machine.
Load: ${connections} keep-alive connections from one Bun driver process, ${batchSize}-event batches
spread over ${projects} projects (the spec caps one project at 5,000 events/s),
seeded generator (seed ${seed}, ${fmt(users)} Zipf users, ${fmt(bytesPerTemplate)} bytes of JSON per event),
${seconds} s per measurement (half load: ${halfLoadSeconds} s after ${warmUpSeconds} s of warm-up), median of ${runs} runs; the parse-only ceiling is measured in each run with the same driver.
Sustained = acknowledged events / (load time + the time, after the load, to seal and compact what storage had not done yet):
the rate at which every event is both durable and in compacted Parquet.

| measure | median | target |
|---|---|---|
${row("parse-only ceiling (bare Bun server, JSON.parse only): rate; CPU per event", `${fmt(ceilingRate)} events/s; ${fmt(median(ceilings.map((c) => c.cpuMicrosPerEvent)), 2)} us`, "baseline")}
${row("durable floor (bare Bun server: JSON.parse, then the body appended to a log, group-commit fdatasync before the answer): rate; CPU per event", `${fmt(floorRate)} events/s (${fmt((100 * floorRate) / ceilingRate, 1)}% of ceiling); ${fmt(median(floors.map((f) => f.cpuMicrosPerEvent)), 2)} us`, "reference")}
${row("durable ingest, sustained (validate, persons, WAL fsync before ack, seal, compact)", `${fmt(sustainedRate)} events/s (${fmt((100 * sustainedRate) / ceilingRate, 1)}% of ceiling, ${fmt((100 * sustainedRate) / floorRate, 1)}% of the durable floor)`, "at least 40% of ceiling")}
${row("durable ingest, acknowledged during the load", `${fmt(acknowledgedRate)} events/s; catch-up after ${seconds} s: ${fmt(median(durables.map((d) => d.catchUpSeconds)), 1)} s`, "-")}
${row("ack latency at full load p50 / p99", `${fmt(median(durables.map((d) => d.load.p50Ms)), 1)} / ${fmt(median(durables.map((d) => d.load.p99Ms)), 1)} ms`, "-")}
${row("ack latency at half the sustained rate p50 / p99", `${fmt(median(halfLoads.map((h) => h.p50Ms)), 1)} / ${fmt(median(halfLoads.map((h) => h.p99Ms)), 1)} ms`, "p99 under 50 ms")}
${row("bytes per event on disk after compaction", fmt(median(durables.map((d) => d.bytesPerEvent)), 1), "at most 60")}
${row("server peak RSS while ingesting at full load", `${fmt(median(durables.map((d) => d.peakRssBytes)) / 2 ** 20)} MiB`, "under 1 GiB")}
${row("CPU per event, all threads of the server during the load plus the catch-up", `${fmt(cpuPerEvent, 2)} us`, "-")}
${row("durable ingest without person resolution (baseline for its cost): sustained; CPU per event", `${fmt(withoutPersonsRate)} events/s; ${fmt(withoutPersonsCpuPerEvent, 2)} us`, "-")}
${row("cost of person resolution in throughput: by CPU per event; by sustained rate", `${fmt(personCostByCpu, 1)}%; ${fmt(personCostBySustained, 1)}%`, "at most 10%")}

CPU per event by thread during the load (us, median of the runs; "exited": threads that ended during the load;
"sum": of the medians). One thread does at most a second of work per second: at the CPU per event measured here,
durable ingest's busiest single thread (${busiestThread}), at ${fmt(busiestThreadMicros, 2)} us, would saturate at about
${fmt(1e6 / busiestThreadMicros)} events/s (${fmt((100 * 1e6) / busiestThreadMicros / ceilingRate, 1)}% of the ceiling), however idle the others were.

| server | ${threadGroups.join(" | ")} | sum |
|---|${threadGroups.map(() => "---|").join("")}---|
${threadRow("parse-only ceiling", ceilings)}
${threadRow("durable floor", floors)}
${threadRow("durable ingest", durables)}

Per run: ${durables.map((d, i) => `run ${i + 1}: ceiling ${fmt(ceilings[i]!.load.eventsPerSecond)}, durable floor ${fmt(floors[i]!.load.eventsPerSecond)}, sustained ${fmt(d.sustainedEventsPerSecond)} (acknowledged ${fmt(d.load.eventsPerSecond)}, catch-up ${fmt(d.catchUpSeconds, 1)} s, peak RSS ${fmt(d.peakRssBytes / 2 ** 20)} MiB, CPU ${fmt(d.cpuMicrosPerEvent, 2)} us/event), half load p99 ${fmt(halfLoads[i]!.p99Ms, 1)} ms, without person resolution ${fmt(withoutPersons[i]!.sustainedEventsPerSecond)} events/s (catch-up ${fmt(withoutPersons[i]!.catchUpSeconds, 1)} s, CPU ${fmt(withoutPersons[i]!.cpuMicrosPerEvent, 2)} us/event), stored ${fmt(d.storedEvents)} events, errors ${d.load.errors + halfLoads[i]!.errors}`).join("; ")}.
`;
writeResultsSection("bench/ingest", report);
console.log(report);
