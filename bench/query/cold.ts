// One cold measurement in a fresh process (measure.ts spawns one per engine, case and
// repetition): the first query an engine runs after start, Parquet read and decoded from the
// files (the OS page cache is warm: the same files were just read). Start-up is not timed:
// opening the store's manifest and, for a baseline, its session, person tables (and native
// table) and the case's SQL. Prints {"ms": ...} as the last line (null: the baseline leaves the case out).
//   bun bench/query/cold.ts executor|<baseline> <case index> <seed> <events>
import { ChunkStore } from "../../engine/chunk-store.ts";
import { baselineNames, openBaseline, type BaselineName } from "./baselines.ts";
import { benchCases } from "./cases.ts";
import { openBenchData } from "./data.ts";
import { benchQuery, columnCacheBytes, executorSource, runExecutor } from "./engines.ts";

const [engine, caseIndex, seed, events] = process.argv.slice(2);
const benchCase = benchCases[Number(caseIndex)];
const isBaseline = (name: string | undefined): name is BaselineName => (baselineNames as readonly string[]).includes(name ?? "");
if ((engine !== "executor" && !isBaseline(engine)) || !benchCase) throw new Error(`usage: cold.ts executor|${baselineNames.join("|")} <case index> <seed> <events>`);

const data = await openBenchData(Number(seed), Number(events));
const query = benchQuery(benchCase);
let ms: number | null = null;
if (engine === "executor") {
  const source = executorSource(data, new ChunkStore(columnCacheBytes));
  const started = performance.now();
  await runExecutor(query, source);
  ms = performance.now() - started;
} else {
  const baseline = await openBaseline(engine as BaselineName, data);
  const prepared = await baseline.prepare(benchCase, query);
  if (prepared) {
    const started = performance.now();
    await prepared.run();
    ms = performance.now() - started;
  }
  baseline.close();
}
console.log(JSON.stringify({ ms }));
