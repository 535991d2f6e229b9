// The executor with one query thread against QUERY_WORKERS threads (main thread included), in
// the same run: cold (a fresh process per run, bench/query/cold.ts with QUERY_WORKERS set) and
// warm (one column store each in this process), interleaved, medians; the warm answers are
// checked equal first. Prints figures only (bench/RESULTS.md is left to run.ts).
//   bun bench/query/workers.ts --events 1m   (BENCH_THREADS=2 BENCH_RUNS=7 BENCH_COLD_RUNS=5 BENCH_CASES="trends total by \$browser")
import { loadavg } from "node:os";
import { join } from "node:path";
import { deepStrictEqual } from "node:assert";
import { ChunkStore } from "../../engine/chunk-store.ts";
import { DecodePool } from "../../engine/parallel/decode-pool.ts";
import { median } from "../figures.ts";
import { benchCases } from "./cases.ts";
import { openBenchData } from "./data.ts";
import { benchQuery, columnCacheBytes, executorSource, runExecutor } from "./engines.ts";

/** "100k", "1m", "10m" or a plain number of events (as run.ts reads them). */
function parseCount(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!match) throw new Error(`cannot read an event count from "${text}" (use e.g. 100k, 1m, 10m)`);
  return Math.round(Number(match[1]) * { "": 1, k: 1_000, m: 1_000_000 }[match[2]!.toLowerCase() as "" | "k" | "m"]);
}

const eventsFlag = process.argv.indexOf("--events");
const events = parseCount((eventsFlag >= 0 ? process.argv[eventsFlag + 1] : process.env.BENCH_EVENTS) ?? "1m");
const seed = Number(process.env.BENCH_SEED ?? 42);
const threads = Number(process.env.BENCH_THREADS ?? 2);
const warmRuns = Number(process.env.BENCH_RUNS ?? 7);
const coldRuns = Number(process.env.BENCH_COLD_RUNS ?? 5);
const selected = process.env.BENCH_CASES?.split(",").map((name) => name.trim());
const cases = benchCases.map((benchCase, index) => ({ benchCase, index })).filter(({ benchCase }) => !selected || selected.includes(benchCase.name));

async function coldMs(queryThreads: number, caseIndex: number): Promise<number> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "cold.ts"), "executor", String(caseIndex), String(seed), String(events)], {
    stdout: "pipe",
    stderr: "inherit",
    env: { ...process.env, QUERY_WORKERS: String(queryThreads) },
  });
  const output = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`cold run of case ${caseIndex} failed`);
  return (JSON.parse(output.trim().split("\n").at(-1)!) as { ms: number }).ms;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  Bun.gc(true);
  const started = performance.now();
  await work();
  return performance.now() - started;
}

const data = await openBenchData(seed, events, console.log);
const loads = [loadavg()[0]!];
console.log(`${events.toLocaleString("en-US")} events, ${data.parts} parts; 1 thread against ${threads}; warm x${warmRuns}, cold x${coldRuns}`);
const pool = new DecodePool(threads - 1);
const single = executorSource(data, new ChunkStore(columnCacheBytes, null));
const parallel = executorSource(data, new ChunkStore(columnCacheBytes, pool));
for (const { benchCase, index } of cases) {
  const cold: Record<"one" | "many", number[]> = { one: [], many: [] };
  for (let run = 0; run < coldRuns; run++) {
    for (const which of run % 2 === 0 ? (["one", "many"] as const) : (["many", "one"] as const)) cold[which].push(await coldMs(which === "one" ? 1 : threads, index));
  }
  const query = benchQuery(benchCase);
  deepStrictEqual(await runExecutor(query, parallel), await runExecutor(query, single));
  const warm: Record<"one" | "many", number[]> = { one: [], many: [] };
  for (let run = 0; run < warmRuns; run++) {
    for (const which of run % 2 === 0 ? (["one", "many"] as const) : (["many", "one"] as const)) {
      warm[which].push(await timed(() => runExecutor(query, which === "one" ? single : parallel)));
    }
  }
  loads.push(loadavg()[0]!);
  const figure = (values: number[]) => `${median(values).toFixed(0)} (${values.map((value) => value.toFixed(0)).join(" ")})`;
  console.log(`${benchCase.name}: cold ms 1 thread ${figure(cold.one)}, ${threads} threads ${figure(cold.many)}; warm ms 1 thread ${figure(warm.one)}, ${threads} threads ${figure(warm.many)}`);
}
console.log(`load average (1 min) during the run: ${loads.map((load) => load.toFixed(2)).join(", ")}`);
await pool.close();
