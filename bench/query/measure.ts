// bench/query's measurements: every baseline's answer checked equal to the executor's first
// (a difference fails the run with the difference and the baseline's SQL), then the selected
// modes, each a median per engine and case:
// - warm: the executor's columns cached (a cache big enough for every case), baselines' sessions reused;
// - bounded: the executor with the service's default column cache (QUERY_CACHE_MB), the cases
//   run in turn so at large sizes each evicts the others' columns, which are read again. The
//   bound is the executor's alone: a baseline runs exactly as in warm, so when warm is measured
//   too its warm medians stand for bounded (at 100M that saves a third of the run's time);
// - cold: the first query of a fresh process per engine, case and repetition (cold.ts).
// Engines take turns in an order that rotates with each repetition.
import { join } from "node:path";
import { ChunkStore, defaultColumnCacheBytes } from "../../engine/chunk-store.ts";
import { median } from "../figures.ts";
import { openBaseline, type Baseline, type BaselineName } from "./baselines.ts";
import type { BenchCase } from "./cases.ts";
import type { BenchData } from "./data.ts";
import { benchQuery, columnCacheBytes, duckDbAnswer, executorSource, runExecutor } from "./engines.ts";
import { resultDifference } from "./same-result.ts";

export type Engine = "executor" | BaselineName;
export const modes = ["warm", "cold", "bounded"] as const;
export type Mode = (typeof modes)[number];
/** Milliseconds per engine; null where a baseline leaves the case out. */
export type Times = Partial<Record<Engine, number | null>>;

export interface CaseFigures {
  name: string;
  times: Partial<Record<Mode, Times>>;
}

export interface SelectedCase {
  benchCase: BenchCase;
  /** Its index in benchCases, how cold.ts names it. */
  index: number;
}

export interface MeasureOptions {
  data: BenchData;
  cases: SelectedCase[];
  baselines: BaselineName[];
  modes: Mode[];
  /** Timed runs per engine and case in warm and bounded modes, and fresh processes in cold. */
  runs: number;
  coldRuns: number;
  log: (line: string) => void;
}

/** `items` rotated by `by`, so no engine always runs right after the same other. */
const rotated = <T>(items: T[], by: number): T[] => items.map((_, index) => items[(index + by) % items.length]!);

/** Milliseconds of `work`, after a full collection so earlier garbage is not charged to it. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  Bun.gc(true);
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Throws, with the difference and the SQL, when a baseline's answer is not the executor's. */
export async function checkCase(benchCase: BenchCase, baselines: Baseline[], store: ChunkStore, data: BenchData): Promise<void> {
  const query = benchQuery(benchCase);
  const executed = await runExecutor(query, executorSource(data, store));
  for (const baseline of baselines) {
    const prepared = await baseline.prepare(benchCase, query);
    if (!prepared) continue;
    const problem = resultDifference(executed, duckDbAnswer(query, executed, await prepared.run()));
    if (problem) throw new Error(`"${benchCase.name}": ${baseline.name}'s answer differs from the executor's\n${problem}\nSQL:\n${prepared.sql}`);
  }
}

/** Warm or bounded: repetitions outside, cases inside, so a bounded cache cycles through every case's columns. */
async function inProcess(mode: "warm" | "bounded", options: MeasureOptions, baselines: Baseline[], store: ChunkStore): Promise<Map<number, Times>> {
  const engines: Engine[] = ["executor", ...baselines.map((baseline) => baseline.name)];
  const samples = new Map(options.cases.map(({ index }) => [index, new Map<Engine, number[]>()]));
  const source = executorSource(options.data, store);
  for (let repetition = 0; repetition < options.runs; repetition++) {
    for (const { benchCase, index } of options.cases) {
      const query = benchQuery(benchCase);
      for (const engine of rotated(engines, repetition)) {
        const baseline = baselines.find((candidate) => candidate.name === engine);
        const prepared = baseline ? await baseline.prepare(benchCase, query) : null;
        if (baseline && !prepared) continue;
        const ms = await timed(() => (prepared ? prepared.run() : runExecutor(query, source)));
        const times = samples.get(index)!;
        times.set(engine, [...(times.get(engine) ?? []), ms]);
      }
    }
    options.log(`${mode} ${repetition + 1}/${options.runs} done`);
  }
  return new Map(options.cases.map(({ index }) => [index, Object.fromEntries(engines.map((engine) => {
    const times = samples.get(index)!.get(engine);
    return [engine, times ? median(times) : null];
  })) as Times]));
}

/** The bounded executor's medians beside the baselines' warm ones. */
const withBaselinesOf = (warm: Map<number, Times>, bounded: Map<number, Times>): Map<number, Times> =>
  new Map([...bounded].map(([index, times]) => [index, { ...warm.get(index)!, executor: times.executor }]));

async function coldMs(engine: Engine, caseIndex: number, data: BenchData): Promise<number | null> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "cold.ts"), engine, String(caseIndex), String(data.seed), String(data.events)], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const output = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`cold ${engine} run of case ${caseIndex} failed`);
  return (JSON.parse(output.trim().split("\n").at(-1)!) as { ms: number | null }).ms;
}

async function cold(options: MeasureOptions): Promise<Map<number, Times>> {
  const engines: Engine[] = ["executor", ...options.baselines];
  const samples = new Map(options.cases.map(({ index }) => [index, new Map<Engine, (number | null)[]>()]));
  for (let repetition = 0; repetition < options.coldRuns; repetition++) {
    for (const { benchCase, index } of options.cases) {
      for (const engine of rotated(engines, repetition)) {
        const times = samples.get(index)!;
        times.set(engine, [...(times.get(engine) ?? []), await coldMs(engine, index, options.data)]);
      }
      options.log(`cold ${repetition + 1}/${options.coldRuns} ${benchCase.name}`);
    }
  }
  return new Map(options.cases.map(({ index }) => [index, Object.fromEntries(engines.map((engine) => {
    const times = samples.get(index)!.get(engine)!;
    return [engine, times.includes(null) ? null : median(times as number[])];
  })) as Times]));
}

export async function measure(options: MeasureOptions): Promise<CaseFigures[]> {
  const figures = options.cases.map(({ benchCase }) => ({ name: benchCase.name, times: {} as Partial<Record<Mode, Times>> }));
  const record = (mode: Mode, times: Map<number, Times>) => options.cases.forEach(({ index }, at) => (figures[at]!.times[mode] = times.get(index)!));
  const baselines: Baseline[] = [];
  try {
    for (const name of options.baselines) baselines.push(await openBaseline(name, options.data));
    const warmStore = new ChunkStore(columnCacheBytes);
    for (const { benchCase } of options.cases) {
      await checkCase(benchCase, baselines, warmStore, options.data);
      options.log(`checked ${benchCase.name}: every baseline's answer equals the executor's`);
    }
    const warm = options.modes.includes("warm") ? await inProcess("warm", options, baselines, warmStore) : null;
    if (warm) record("warm", warm);
    if (options.modes.includes("bounded")) {
      // The warm store's columns are dropped first, so the bounded run holds only its own.
      warmStore.forgetFilesUnder(options.data.dir);
      const bounded = await inProcess("bounded", options, warm ? [] : baselines, new ChunkStore(defaultColumnCacheBytes));
      record("bounded", warm ? withBaselinesOf(warm, bounded) : bounded);
    }
  } finally {
    for (const baseline of baselines) baseline.close();
  }
  if (options.modes.includes("cold")) record("cold", await cold(options));
  return figures;
}
