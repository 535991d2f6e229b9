// bench/query's whole pipeline at a tiny size (20k events, one run each): every baseline's
// hand-written or compiled SQL must give the executor's answer on every case before it is
// timed, in warm, bounded-cache and cold (fresh process) modes, and a baseline whose answer
// differs fails the run with its SQL. The chdb baseline runs only when it is installed
// (bench/query/chdb, opt-in: see bench/README.md).
import { expect, test } from "bun:test";
import { ChunkStore } from "../../engine/chunk-store.ts";
import { openBaseline, type Baseline, type BaselineName } from "../../bench/query/baselines.ts";
import { benchCases } from "../../bench/query/cases.ts";
import { chdbInstalled } from "../../bench/query/chdb-baseline.ts";
import { openBenchData } from "../../bench/query/data.ts";
import { checkCase, measure, type CaseFigures, type Engine, type Mode } from "../../bench/query/measure.ts";

const tinyEvents = 20_000;
const seed = 42;
const allCases = benchCases.map((benchCase, index) => ({ benchCase, index }));
/** The cases chdb-hand.ts leaves out (no ClickHouse function gives their answer). */
const leftOutByChdb = ["funnel 3 steps", "funnel 5 steps", "paths"];

/** Which engines have a time in each mode, per case: null where a baseline leaves the case out. */
const measuredShape = (figures: CaseFigures[], modes: Mode[], engines: Engine[]) =>
  figures.map(({ name, times }) => ({
    name,
    modes: Object.fromEntries(modes.map((mode) => [mode, Object.fromEntries(engines.map((engine) => [engine, typeof times[mode]![engine] === "number" ? "timed" : times[mode]![engine]]))])),
  }));

const expectedShape = (modes: Mode[], engines: Engine[]) =>
  benchCases.map(({ name }) => ({
    name,
    modes: Object.fromEntries(modes.map((mode) => [mode, Object.fromEntries(engines.map((engine) => [engine, engine === "chdb" && leftOutByChdb.includes(name) ? null : "timed"]))])),
  }));

async function pipeline(baselines: BaselineName[], modes: Mode[], cases = allCases) {
  const data = await openBenchData(seed, tinyEvents);
  return measure({ data, cases, baselines, modes, runs: 1, coldRuns: 1, log: () => {} });
}

// One test per baseline and mode, each well within the suite's 60 s limit on a loaded machine.
for (const baseline of ["duckdb-hand-parquet", "duckdb-hand-native", "duckdb-compiled"] as const) {
  test(`${baseline} equals the executor on every case, then is timed warm`, async () => {
    const figures = await pipeline([baseline], ["warm"]);
    expect(measuredShape(figures, ["warm"], ["executor", baseline])).toEqual(expectedShape(["warm"], ["executor", baseline]));
  });
}

test("bounded cache times the executor with the default column cache and the baselines on every case", async () => {
  const figures = await pipeline(["duckdb-hand-native"], ["bounded"]);
  expect(measuredShape(figures, ["bounded"], ["executor", "duckdb-hand-native"])).toEqual(expectedShape(["bounded"], ["executor", "duckdb-hand-native"]));
});

test("with warm measured too, bounded times the executor again and takes the baselines' warm medians", async () => {
  const figures = await pipeline(["duckdb-hand-native"], ["warm", "bounded"]);
  expect(measuredShape(figures, ["warm", "bounded"], ["executor", "duckdb-hand-native"])).toEqual(expectedShape(["warm", "bounded"], ["executor", "duckdb-hand-native"]));
  expect(figures.map(({ times }) => times.bounded!["duckdb-hand-native"])).toEqual(figures.map(({ times }) => times.warm!["duckdb-hand-native"]));
});

// Every baseline goes through the same cold.ts path (openBaseline, prepare, run): one stands for all.
test("cold runs the executor and a baseline in fresh processes", async () => {
  const baselines: BaselineName[] = ["duckdb-hand-parquet"];
  const figures = await pipeline(baselines, ["cold"], allCases.slice(0, 1));
  expect(measuredShape(figures, ["cold"], ["executor", ...baselines])).toEqual(expectedShape(["cold"], ["executor", ...baselines]).slice(0, 1));
});

test.skipIf(!chdbInstalled())("chdb (only when installed in bench/query/chdb) equals the executor on the cases it runs, then is timed warm", async () => {
  const figures = await pipeline(["chdb"], ["warm"]);
  expect(measuredShape(figures, ["warm"], ["executor", "chdb"])).toEqual(expectedShape(["warm"], ["executor", "chdb"]));
});

test.skipIf(!chdbInstalled())("chdb (only when installed in bench/query/chdb) runs cold in a fresh process", async () => {
  const figures = await pipeline(["chdb"], ["cold"], allCases.slice(0, 1));
  expect(measuredShape(figures, ["cold"], ["executor", "chdb"])).toEqual(expectedShape(["cold"], ["executor", "chdb"]).slice(0, 1));
});

test("a baseline whose answer differs fails the check with the difference and its SQL", async () => {
  const data = await openBenchData(seed, tinyEvents);
  const honest = await openBaseline("duckdb-hand-parquet", data);
  // Counts one more person at every stickiness: the kind of slip a hand-written query makes.
  const offByOne: Baseline = {
    ...honest,
    async prepare(benchCase, query) {
      const prepared = (await honest.prepare(benchCase, query))!;
      return { sql: prepared.sql, run: async () => (await prepared.run()).map((row) => ({ ...row, persons: Number(row.persons) + 1 })) };
    },
  };
  const stickiness = benchCases.find(({ name }) => name === "stickiness daily")!;
  try {
    const failure = await checkCase(stickiness, [offByOne], new ChunkStore(), data).then(() => null, (error: Error) => error.message);
    expect(failure?.split("\n").slice(0, 2)).toEqual([
      "\"stickiness daily\": duckdb-hand-parquet's answer differs from the executor's",
      expect.stringMatching(/^result\.persons\[0\]: \d+ != \d+$/),
    ]);
    expect(failure).toContain("count(DISTINCT r.day) AS intervals");
  } finally {
    honest.close();
  }
});
