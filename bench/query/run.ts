// bench/query: the executor against DuckDB (2 threads, the compiled SQL, the same Parquet
// files) for one query per insight kind, in the same run: cold (first query of a fresh
// process, one per engine, case and repetition) and warm (columns cached, DuckDB session
// reused), medians; each warm case first checks that both engines give the same answer.
// Writes the "Query engine"
// section of bench/RESULTS.md (only when every case ran: BENCH_CASES selects a few).
//   bun bench/query/run.ts --events 1m     (or BENCH_EVENTS=10m; BENCH_SEED=42 BENCH_RUNS=5 BENCH_COLD_RUNS=3 BENCH_CASES="funnel 3 steps,paths")
import { loadavg } from "node:os";
import { join } from "node:path";
import { ChunkStore } from "../../engine/chunk-store.ts";
import { DuckDbSession } from "../../engine/sql/duckdb.ts";
import { writeResultsSection } from "../results.ts";
import { median } from "../figures.ts";
import { benchCases, type BenchCase } from "./cases.ts";
import { openBenchData, type BenchData } from "./data.ts";
import { benchQuery, columnCacheBytes, duckDbAnswer, duckDbThreads, executorSource, prepareDuckDb, runDuckDb, runExecutor } from "./engines.ts";
import { reportSection, type CaseFigures } from "./report.ts";
import { resultDifference } from "./same-result.ts";

type Engine = "executor" | "duckdb";

/** "100k", "1m", "10M" or a plain number of events. */
function parseCount(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!match) throw new Error(`cannot read an event count from "${text}" (use e.g. 100k, 1m, 10m)`);
  const scale = { "": 1, k: 1_000, m: 1_000_000 }[match[2]!.toLowerCase() as "" | "k" | "m"];
  return Math.round(Number(match[1]) * scale);
}

const eventsFlag = process.argv.indexOf("--events");
const events = parseCount(eventsFlag >= 0 ? process.argv[eventsFlag + 1] ?? "" : process.env.BENCH_EVENTS ?? "1m");
const seed = Number(process.env.BENCH_SEED ?? 42);
const warmRuns = Number(process.env.BENCH_RUNS ?? 5);
const coldRuns = Number(process.env.BENCH_COLD_RUNS ?? 3);
const selected = process.env.BENCH_CASES?.split(",").map((name) => name.trim());
// Every case is reported with a median of each: a run without one has nothing to report.
if (!(warmRuns >= 1 && coldRuns >= 1)) throw new Error(`BENCH_RUNS and BENCH_COLD_RUNS must be at least 1 (got ${warmRuns} and ${coldRuns})`);

/** Engines in alternating order per repetition, so neither always runs right after the other. */
const engineOrder = (repetition: number): Engine[] => (repetition % 2 === 0 ? ["executor", "duckdb"] : ["duckdb", "executor"]);

/** Milliseconds of `work`, after a full collection so earlier garbage is not charged to it. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  Bun.gc(true);
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function coldMs(engine: Engine, caseIndex: number): Promise<number> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "cold.ts"), engine, String(caseIndex), String(seed), String(events)], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const output = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`cold ${engine} run of case ${caseIndex} failed`);
  return (JSON.parse(output.trim().split("\n").at(-1)!) as { ms: number }).ms;
}

const cases = benchCases
  .map((benchCase, index) => ({ benchCase, index }))
  .filter(({ benchCase }) => !selected || selected.includes(benchCase.name));
if (selected && cases.length !== selected.length) throw new Error(`BENCH_CASES names unknown cases; the cases are: ${benchCases.map((c) => c.name).join(", ")}`);

const loadAtStart = loadavg()[0]!;
const data = await openBenchData(seed, events, console.log);
console.log(`${events.toLocaleString("en-US")} events, ${data.parts} Parquet parts; ${cases.length} cases, warm x${warmRuns}, cold x${coldRuns}`);

// Cold first, while this process holds no decoded columns and no DuckDB session.
const cold = new Map<number, Record<Engine, number[]>>(cases.map(({ index }) => [index, { executor: [], duckdb: [] }]));
for (let repetition = 0; repetition < coldRuns; repetition++) {
  for (const { benchCase, index } of cases) {
    for (const engine of engineOrder(repetition)) cold.get(index)![engine].push(await coldMs(engine, index));
    console.log(`cold ${repetition + 1}/${coldRuns} ${benchCase.name}: executor ${cold.get(index)!.executor.at(-1)!.toFixed(1)} ms, DuckDB ${cold.get(index)!.duckdb.at(-1)!.toFixed(1)} ms`);
  }
}

/** Warm figures of one case: a first run of each engine (compared), then interleaved timed runs. */
async function warmCase(benchCase: BenchCase, data: BenchData, source: ReturnType<typeof executorSource>, session: DuckDbSession) {
  const query = benchQuery(benchCase);
  const sql = await prepareDuckDb(session, data, query);
  const executed = await runExecutor(query, source);
  const problem = resultDifference(executed, duckDbAnswer(query, executed, await runDuckDb(session, sql)));
  if (problem) throw new Error(`"${benchCase.name}": the executor's result differs from DuckDB's\n${problem}\nSQL:\n${sql.sql}\n${JSON.stringify(sql.params)}`);
  const times: Record<Engine, number[]> = { executor: [], duckdb: [] };
  for (let repetition = 0; repetition < warmRuns; repetition++) {
    for (const engine of engineOrder(repetition)) {
      times[engine].push(await timed(() => (engine === "executor" ? runExecutor(query, source) : runDuckDb(session, sql))));
    }
  }
  return { executor: median(times.executor), duckdb: median(times.duckdb) };
}

const source = executorSource(data, new ChunkStore(columnCacheBytes));
const session = await DuckDbSession.open(duckDbThreads);
const figures: CaseFigures[] = [];
for (const { benchCase, index } of cases) {
  const warm = await warmCase(benchCase, data, source, session);
  const { executor, duckdb } = cold.get(index)!;
  figures.push({ name: benchCase.name, warm, cold: { executor: median(executor), duckdb: median(duckdb) } });
  console.log(`warm ${benchCase.name}: executor ${warm.executor.toFixed(1)} ms, DuckDB ${warm.duckdb.toFixed(1)} ms, results equal`);
}
session.close();

const section = reportSection({ data, loadAtStart, warmRuns, coldRuns, cases: figures });
console.log(`\n${section}`);
if (selected) console.log("(BENCH_CASES ran a selection: bench/RESULTS.md left as it was)");
else writeResultsSection("Query engine", section);
