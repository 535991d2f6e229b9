// bench/query's table (printed, and written as the "Query engine" section of bench/RESULTS.md).
// Ratios are DuckDB's time over the executor's: above 1 the executor is faster.
import { cpus, loadavg, totalmem } from "node:os";
import { version as duckDbVersion } from "@duckdb/node-api";
import type { BenchData } from "./data.ts";
import { rangeFrom, rangeTo, timeZone } from "./data.ts";
import { columnCacheBytes, duckDbThreads } from "./engines.ts";
import { fmt } from "../figures.ts";

export interface CaseFigures {
  name: string;
  warm: { executor: number; duckdb: number };
  cold: { executor: number; duckdb: number };
}

export interface ReportInput {
  data: BenchData;
  /** The 1-minute load average when the run started: other work on the machine makes figures noisier. */
  loadAtStart: number;
  warmRuns: number;
  coldRuns: number;
  cases: CaseFigures[];
}

const ms = (value: number) => fmt(value, value < 10 ? 2 : value < 100 ? 1 : 0);
const ratio = (duckdb: number, executor: number) => `${fmt(duckdb / executor, 2)}x`;
const sizeName = (events: number) => (events % 1_000_000 === 0 ? `${events / 1_000_000}M` : events % 1000 === 0 ? `${events / 1000}k` : fmt(events));

export function geometricMean(values: number[]): number {
  return Math.exp(values.reduce((sum, value) => sum + Math.log(value), 0) / values.length);
}

export function reportSection({ data, loadAtStart, warmRuns, coldRuns, cases }: ReportInput): string {
  const rows = cases.map((figures) => {
    const { name, warm, cold } = figures;
    return `| ${name} | ${ms(warm.executor)} | ${ms(warm.duckdb)} | ${ratio(warm.duckdb, warm.executor)} | ${ms(cold.executor)} | ${ms(cold.duckdb)} | ${ratio(cold.duckdb, cold.executor)} |`;
  });
  const warmMean = geometricMean(cases.map(({ warm }) => warm.duckdb / warm.executor));
  const coldMean = geometricMean(cases.map(({ cold }) => cold.duckdb / cold.executor));
  const lines = [
    `## Query engine (bench/query) — ${new Date().toISOString().slice(0, 10)}, ${sizeName(data.events)} events`,
    "",
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown CPU"}), ${fmt(totalmem() / 2 ** 30)} GiB RAM, Bun ${Bun.version}, DuckDB ${duckDbVersion()} with ${duckDbThreads} threads;`,
    `load average ${fmt(loadAtStart, 1)} when the run started, ${fmt(loadavg()[0]!, 1)} when it ended (other work on the machine makes the figures noisier).`,
    `Data: ${fmt(data.events)} events (${sizeName(data.events)}) from the seeded generator (seed ${data.seed}, ${fmt(data.users)} Zipf users, a tenth of persons merged),`,
    `spread evenly over ${rangeFrom} to ${rangeTo} (${timeZone}) and written by storage's EventStore with its default tuning:`,
    `${fmt(data.parts)} Parquet parts, ${fmt(data.bytes / 2 ** 20, 1)} MiB. Every case reads the whole range.`,
    `Executor: executeQuery over the query service's QuerySource (column cache bound ${fmt(columnCacheBytes / 2 ** 30)} GiB). DuckDB: the compiled SQL with its parameters over a view of the same Parquet files.`,
    `Warm: median of ${warmRuns} runs, the engines interleaved, after one run of each that is also the check (the executor's result must equal DuckDB's, as in the differential test).`,
    `Cold: median of ${coldRuns} runs, each the first query of a fresh Bun process (Parquet read and decoded; the OS page cache is warm; start-up not timed).`,
    "Ratio: DuckDB ms / executor ms (above 1: the executor is faster).",
    "",
    "| case | executor warm ms | DuckDB warm ms | warm ratio | executor cold ms | DuckDB cold ms | cold ratio |",
    "|---|---|---|---|---|---|---|",
    ...rows,
    "",
    `Geometric mean of warm ratios: ${fmt(warmMean, 2)}x; of cold ratios: ${fmt(coldMean, 2)}x (over ${cases.length} cases).`,
    "Targets (issue 5, at 10M events): warm at least 3x for every kind and 5x geometric mean; cold at least 0.5x.",
  ];
  return `${lines.join("\n")}\n`;
}
