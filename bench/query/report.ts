// bench/query's section: one table per mode with every engine per case, each case's best
// baseline (the fastest of the hand-written DuckDB SQL, over Parquet or a native table, and
// chDB: what the issue's targets compare with) and the executor's speed-up over it, their
// geometric mean, then plain lines saying which of issue 35's targets are met.
import { existsSync, readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { version as duckDbVersion } from "@duckdb/node-api";
import { defaultColumnCacheBytes } from "../../engine/chunk-store.ts";
import { fmt } from "../figures.ts";
import type { BenchData } from "./data.ts";
import { rangeFrom, rangeTo, timeZone } from "./data.ts";
import { columnCacheBytes, duckDbThreads } from "./engines.ts";
import type { CaseFigures, Engine, Mode, Times } from "./measure.ts";

export interface ReportInput {
  data: BenchData;
  /** The 1-minute load average when the run started: other work on the machine makes figures noisier. */
  loadAtStart: number;
  runs: number;
  coldRuns: number;
  engines: Engine[];
  cases: CaseFigures[];
}

const engineTitles: Record<Engine, string> = {
  executor: "executor",
  "duckdb-hand-parquet": "DuckDB hand SQL, Parquet",
  "duckdb-hand-native": "DuckDB hand SQL, native table",
  chdb: "chDB hand SQL, Parquet",
  "duckdb-compiled": "DuckDB compiled SQL, Parquet",
};
/** The baselines the targets compare with; the compiled SQL is measured against the hand-written one instead. */
const bestOf: Engine[] = ["duckdb-hand-parquet", "duckdb-hand-native", "chdb"];
/** Issue 35's targets. */
const warmSpeedUpMin = 2;
const warmGeometricMeanMin = 3;
const compiledOverHandMax = 1.5;
const trendsWarmMaxMs = 500;
const trendsColdMaxMs = 2000;
const trendsTargetEvents = 100_000_000;

const ms = (value: number | null | undefined) => (value === null || value === undefined ? "—" : fmt(value, value < 10 ? 2 : value < 100 ? 1 : 0));
const times = (value: number) => `${fmt(value, 2)}x`;
const sizeName = (events: number) => (events % 1_000_000 === 0 ? `${events / 1_000_000}M` : events % 1000 === 0 ? `${events / 1000}k` : fmt(events));
const met = (ok: boolean) => (ok ? "**met**" : "**not met**");

/** Each size has its own section of bench/RESULTS.md, found by this heading. */
export const sectionHeading = (events: number) => `Query engine, ${sizeName(events)} events`;

/** Whether every case has figures of `mode` (the modes a run did not select have none). */
const measuredIn = (cases: CaseFigures[], mode: Mode) => cases.every(({ times: all }) => all[mode]);

export function geometricMean(values: number[]): number {
  return Math.exp(values.reduce((sum, value) => sum + Math.log(value), 0) / values.length);
}

/** The fastest of the hand-written baselines measured for a case. */
function best(figures: Times): { engine: Engine; ms: number } | null {
  const measured = bestOf.filter((engine) => typeof figures[engine] === "number").map((engine) => ({ engine, ms: figures[engine] as number }));
  return measured.length === 0 ? null : measured.reduce((a, b) => (b.ms < a.ms ? b : a));
}

const speedUps = (cases: CaseFigures[], mode: Mode) =>
  cases.flatMap(({ name, times: all }) => {
    const figures = all[mode]!;
    const baseline = best(figures);
    return baseline ? [{ name, speedUp: baseline.ms / figures.executor!, baseline }] : [];
  });

function modeTable(mode: Mode, engines: Engine[], cases: CaseFigures[]): string[] {
  const rows = cases.map(({ name, times: all }) => {
    const figures = all[mode]!;
    const baseline = best(figures);
    const cells = engines.map((engine) => ms(figures[engine]));
    return `| ${name} | ${cells.join(" | ")} | ${baseline ? `${ms(baseline.ms)} (${engineTitles[baseline.engine]})` : "—"} | ${baseline ? times(baseline.ms / figures.executor!) : "—"} |`;
  });
  const ups = speedUps(cases, mode);
  return [
    `| case | ${engines.map((engine) => `${engineTitles[engine]} ms`).join(" | ")} | best baseline ms | executor speed-up |`,
    `|---|${engines.map(() => "---|").join("")}---|---|`,
    ...rows,
    "",
    `Geometric mean of the executor's speed-ups over the best baseline: ${ups.length > 0 ? times(geometricMean(ups.map(({ speedUp }) => speedUp))) : "—"} (over ${ups.length} cases).`,
  ];
}

function targetLines(input: ReportInput): string[] {
  const { cases, engines, data } = input;
  const has = (mode: Mode) => measuredIn(cases, mode);
  const lines: string[] = [];
  if (has("warm")) {
    const ups = speedUps(cases, "warm");
    const slowest = ups.reduce((a, b) => (b.speedUp < a.speedUp ? b : a));
    const mean = geometricMean(ups.map(({ speedUp }) => speedUp));
    lines.push(`- Warm, the executor at least ${warmSpeedUpMin}x faster than the best baseline on every case: ${met(slowest.speedUp >= warmSpeedUpMin)} (${ups.filter(({ speedUp }) => speedUp >= warmSpeedUpMin).length} of ${ups.length}; lowest ${times(slowest.speedUp)}, ${slowest.name}).`);
    lines.push(`- Warm geometric mean at least ${warmGeometricMeanMin}x: ${met(mean >= warmGeometricMeanMin)} (${times(mean)}).`);
  }
  for (const mode of ["cold", "bounded"] as const) {
    if (!has(mode)) continue;
    const slower = speedUps(cases, mode).filter(({ speedUp }) => speedUp < 1);
    lines.push(`- ${mode === "cold" ? "Cold" : "Bounded cache"}, never slower than the best baseline: ${met(slower.length === 0)}${slower.length > 0 ? ` (slower on ${slower.map(({ name, speedUp }) => `${name} ${times(speedUp)}`).join(", ")})` : ""}.`);
  }
  if (engines.includes("duckdb-compiled") && engines.includes("duckdb-hand-parquet")) {
    for (const mode of ["warm", "cold"] as const) {
      if (!has(mode)) continue;
      const ratios = cases.map(({ name, times: all }) => ({ name, ratio: all[mode]!["duckdb-compiled"]! / all[mode]!["duckdb-hand-parquet"]! }));
      const worst = ratios.reduce((a, b) => (b.ratio > a.ratio ? b : a));
      lines.push(`- ${mode === "warm" ? "Warm" : "Cold"}, our compiled SQL within ${compiledOverHandMax}x of the hand-written DuckDB SQL (both over Parquet) on every case: ${met(worst.ratio <= compiledOverHandMax)} (${ratios.filter(({ ratio }) => ratio <= compiledOverHandMax).length} of ${ratios.length}; worst ${times(worst.ratio)}, ${worst.name}).`);
    }
  }
  const trends = cases.filter(({ name }) => name.startsWith("trends total"));
  if (data.events < trendsTargetEvents || trends.length === 0) lines.push(`- Trends over ${sizeName(trendsTargetEvents)} events (warm under ${trendsWarmMaxMs} ms, cold under ${fmt(trendsColdMaxMs)} ms): not measured in this run (${sizeName(data.events)} events).`);
  else {
    for (const { name, times: all } of trends) {
      const warm = all.warm?.executor;
      const cold = all.cold?.executor;
      lines.push(`- ${name} over ${sizeName(data.events)} events: warm under ${trendsWarmMaxMs} ms ${warm === undefined || warm === null ? "not measured" : `${met(warm < trendsWarmMaxMs)} (${ms(warm)} ms)`}; cold under ${fmt(trendsColdMaxMs)} ms ${cold === undefined || cold === null ? "not measured" : `${met(cold < trendsColdMaxMs)} (${ms(cold)} ms)`}.`);
    }
  }
  return lines;
}

function chdbVersion(): string | null {
  const manifest = join(import.meta.dir, "chdb", "node_modules", "chdb", "package.json");
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version : null;
}

export function reportSection(input: ReportInput): string {
  const { data, loadAtStart, runs, coldRuns, engines, cases } = input;
  const warmMeasured = measuredIn(cases, "warm");
  const modeTitles: Record<Mode, string> = {
    warm: `Warm: median of ${runs} runs per engine, the engines taking turns; the executor's column cache holds every case (${fmt(columnCacheBytes / 2 ** 30)} GiB bound), baselines' sessions reused.`,
    cold: `Cold: median of ${coldRuns} runs, each the first query of a fresh Bun process (Parquet read and decoded; the OS page cache is warm; start-up, sessions, person tables and the native table's load not timed).`,
    bounded: `Bounded cache: median of ${runs} runs, the executor with the service's default column cache (QUERY_CACHE_MB, ${fmt(defaultColumnCacheBytes / 2 ** 20)} MiB), the cases in turn so each evicts others' columns when they do not all fit; the bound is the executor's alone, so ${warmMeasured ? "the baselines' figures are their warm medians from this run" : "the baselines run as in warm"}.`,
  };
  const version = chdbVersion();
  const lines = [
    `## ${sectionHeading(data.events)} (bench/query) — ${new Date().toISOString().slice(0, 10)}`,
    "",
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown CPU"}), ${fmt(totalmem() / 2 ** 30)} GiB RAM, Bun ${Bun.version}, DuckDB ${duckDbVersion()}${version ? `, chdb ${version} (npm)` : ""}, each with ${duckDbThreads} threads; the executor uses one;`,
    `load average ${fmt(loadAtStart, 1)} when the run started, ${fmt(loadavg()[0]!, 1)} when it ended (other work on the machine makes the figures noisier).`,
    `Data: ${fmt(data.events)} events (${sizeName(data.events)}) from the seeded generator (seed ${data.seed}, ${fmt(data.users)} Zipf users, a tenth of persons merged),`,
    `spread evenly over ${rangeFrom} to ${rangeTo} (${timeZone}) and written by storage's EventStore with its default tuning:`,
    `${fmt(data.parts)} Parquet parts, ${fmt(data.bytes / 2 ** 20, 1)} MiB. Every case reads the whole range.`,
    "Engines: the executor (executeQuery over the query service's QuerySource); hand-written DuckDB SQL (bench/query/duckdb-hand.ts) over the same Parquet parts and over a native table loaded once from them;",
    "hand-written ClickHouse SQL run by chDB over the same parts (bench/query/chdb-hand.ts; funnels and paths left out: no function gives their answer, see that file); our compiled SQL (include_sql's) on DuckDB over the parts.",
    "Persons (merges, plans, creation times) are small tables the hand-written SQL joins only where a case needs them.",
    "Every baseline's answer was checked equal to the executor's (the differential test's rule) before any timing; a difference fails the run.",
    "Speed-up: the best baseline's ms over the executor's (above 1: the executor is faster); the best baseline is the fastest hand-written one (DuckDB on Parquet or a native table, chDB); —: not run.",
  ];
  for (const mode of ["warm", "cold", "bounded"] as const) {
    if (!measuredIn(cases, mode)) continue;
    lines.push("", `### ${mode === "bounded" ? "Bounded cache" : mode === "warm" ? "Warm" : "Cold"}`, "", modeTitles[mode], "", ...modeTable(mode, engines, cases));
  }
  lines.push("", "Targets (issue 35; benchmark figures, medians, baselines measured in the same run):", ...targetLines(input));
  return `${lines.join("\n")}\n`;
}
