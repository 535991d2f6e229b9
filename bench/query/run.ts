// bench/query: the executor against hand-written DuckDB SQL (over the Parquet parts and over a
// native table), hand-written ClickHouse SQL on chDB (when installed in bench/query/chdb) and
// our compiled SQL on DuckDB, one query per insight kind, every baseline's answer checked equal
// to the executor's before it is timed (measure.ts). Prints the "Query engine" section;
// `--write` also writes it into bench/RESULTS.md (only when every case ran).
//   bun bench/query/run.ts --events 1m     (or BENCH_EVENTS=10m)
//   BENCH_MODES=warm,cold,bounded (default warm,cold)  BENCH_BASELINES=duckdb-hand-parquet,chdb (default: all; chdb when installed)
//   BENCH_SEED=42 BENCH_RUNS=5 BENCH_COLD_RUNS=3 BENCH_CASES="funnel 3 steps,paths"
import { loadavg } from "node:os";
import { writeResultsSection } from "../results.ts";
import { baselineNames, type BaselineName } from "./baselines.ts";
import { benchCases } from "./cases.ts";
import { chdbInstalled } from "./chdb-baseline.ts";
import { openBenchData } from "./data.ts";
import { measure, modes, type Engine, type Mode } from "./measure.ts";
import { reportSection, sectionHeading } from "./report.ts";

/** "100k", "1m", "10M" or a plain number of events. */
function parseCount(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!match) throw new Error(`cannot read an event count from "${text}" (use e.g. 100k, 1m, 10m)`);
  const scale = { "": 1, k: 1_000, m: 1_000_000 }[match[2]!.toLowerCase() as "" | "k" | "m"];
  return Math.round(Number(match[1]) * scale);
}

function listOf<T extends string>(variable: string, allowed: readonly T[], fallback: T[]): T[] {
  const value = process.env[variable];
  if (!value) return fallback;
  const names = value.split(",").map((name) => name.trim());
  const unknown = names.filter((name) => !(allowed as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`${variable} names ${unknown.join(", ")}; allowed: ${allowed.join(", ")}`);
  return names as T[];
}

const eventsFlag = process.argv.indexOf("--events");
const events = parseCount(eventsFlag >= 0 ? process.argv[eventsFlag + 1] ?? "" : process.env.BENCH_EVENTS ?? "1m");
const seed = Number(process.env.BENCH_SEED ?? 42);
const runs = Number(process.env.BENCH_RUNS ?? 5);
const coldRuns = Number(process.env.BENCH_COLD_RUNS ?? 3);
if (!(runs >= 1 && coldRuns >= 1)) throw new Error(`BENCH_RUNS and BENCH_COLD_RUNS must be at least 1 (got ${runs} and ${coldRuns})`);
const selectedModes = listOf<Mode>("BENCH_MODES", modes, ["warm", "cold"]);
const available = baselineNames.filter((name) => name !== "chdb" || chdbInstalled());
const baselines = listOf<BaselineName>("BENCH_BASELINES", baselineNames, available);
if (baselines.includes("chdb") && !chdbInstalled()) throw new Error("BENCH_BASELINES names chdb, which is not installed: cd bench/query/chdb && npm install");
const selected = process.env.BENCH_CASES?.split(",").map((name) => name.trim());
const cases = benchCases.map((benchCase, index) => ({ benchCase, index })).filter(({ benchCase }) => !selected || selected.includes(benchCase.name));
if (selected && cases.length !== selected.length) throw new Error(`BENCH_CASES names unknown cases; the cases are: ${benchCases.map((c) => c.name).join(", ")}`);

const loadAtStart = loadavg()[0]!;
const data = await openBenchData(seed, events, console.log);
console.log(`${events.toLocaleString("en-US")} events, ${data.parts} Parquet parts; ${cases.length} cases; modes ${selectedModes.join(", ")}; baselines ${baselines.join(", ")}${chdbInstalled() ? "" : " (chdb not installed)"}`);
const figures = await measure({ data, cases, baselines, modes: selectedModes, runs, coldRuns, log: console.log });
const engines: Engine[] = ["executor", ...baselines];
const section = reportSection({ data, loadAtStart, runs, coldRuns, engines, cases: figures });
console.log(`\n${section}`);
if (process.argv.includes("--write")) {
  if (selected) console.log("(BENCH_CASES ran a selection: bench/RESULTS.md left as it was)");
  else writeResultsSection(sectionHeading(events), section);
}
