// One cold measurement in a fresh process (bench/query/run.ts spawns one per engine, case and
// repetition): the first query an engine runs after start, Parquet read and decoded from the
// files (the OS page cache is warm: the same files were just read). Start-up is not timed:
// opening the store's manifest and, for DuckDB, the session with its `events` view and
// `persons` table. Prints {"ms": ...} as the last line.
//   bun bench/query/cold.ts executor|duckdb <case index> <seed> <events>
import { ChunkStore } from "../../engine/chunk-store.ts";
import { DuckDbSession } from "../../engine/sql/duckdb.ts";
import { benchCases } from "./cases.ts";
import { openBenchData } from "./data.ts";
import { benchQuery, columnCacheBytes, duckDbThreads, executorSource, prepareDuckDb, runDuckDb, runExecutor } from "./engines.ts";

const [engine, caseIndex, seed, events] = process.argv.slice(2);
const benchCase = benchCases[Number(caseIndex)];
if ((engine !== "executor" && engine !== "duckdb") || !benchCase) throw new Error("usage: cold.ts executor|duckdb <case index> <seed> <events>");

const data = await openBenchData(Number(seed), Number(events));
const query = benchQuery(benchCase);
let ms: number;
if (engine === "executor") {
  const source = executorSource(data, new ChunkStore(columnCacheBytes));
  const started = performance.now();
  await runExecutor(query, source);
  ms = performance.now() - started;
} else {
  const session = await DuckDbSession.open(duckDbThreads);
  const sql = await prepareDuckDb(session, data, query);
  const started = performance.now();
  await runDuckDb(session, sql);
  ms = performance.now() - started;
  session.close();
}
console.log(JSON.stringify({ ms }));
