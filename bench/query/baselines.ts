// The engines the executor is measured against, each behind one interface: DuckDB running the
// hand-written SQL (duckdb-hand.ts) over the Parquet parts or over a native table loaded once
// from them, ClickHouse's engine through chdb (chdb-baseline.ts, when installed), and DuckDB
// running our compiled SQL (engines.ts). Every baseline answers in the compiled SQL's row
// shapes, turned into the executor's result by duckDbAnswer. Opening a baseline (sessions,
// person tables, the native table) is set-up and never timed.
import type { Query } from "../../engine/ir/query.ts";
import { DuckDbSession } from "../../engine/sql/duckdb.ts";
import { identifier, literal } from "../../engine/sql/params.ts";
import type { BenchCase } from "./cases.ts";
import type { BenchData } from "./data.ts";
import { duckDbHandSql } from "./duckdb-hand.ts";
import { duckDbThreads, prepareDuckDb, runDuckDb } from "./engines.ts";
import { loadPersonTables, personRows } from "./person-tables.ts";

export type Rows = Record<string, unknown>[];

/** One case ready to run: its SQL (shown when its answer differs) and how to run it. */
export interface PreparedCase {
  sql: string;
  run(): Promise<Rows>;
}

export interface Baseline {
  name: BaselineName;
  /** The case ready to run, or null where this baseline leaves the case out (chdb-hand.ts says why). */
  prepare(benchCase: BenchCase, query: Query): Promise<PreparedCase | null>;
  close(): void;
}

export const baselineNames = ["duckdb-hand-parquet", "duckdb-hand-native", "chdb", "duckdb-compiled"] as const;
export type BaselineName = (typeof baselineNames)[number];

/** The columns the hand-written SQL reads, copied into the native table when the parts have them. */
const handColumns = ["event", "timestamp", "person_index", "sample_rate", "p_$browser", "p_price", "p_currency", "p_$pathname", "p_$current_url", "p_$screen_name"];

export function partPaths(data: BenchData): string[] {
  return data.chunks.map((ref) => {
    if (ref.kind !== "part") throw new Error(`bench data must be compacted, found a ${ref.kind}`);
    return ref.path;
  });
}

async function openHandDuckDb(data: BenchData, storage: "parquet" | "native"): Promise<Baseline> {
  const session = await DuckDbSession.open(duckDbThreads);
  const parts = `read_parquet([${partPaths(data).map(literal).join(", ")}], union_by_name = true)`;
  await session.connection.run(`CREATE VIEW parts AS SELECT * FROM ${parts}`);
  const present = new Set((await session.rowObjects<{ column_name: string }>("DESCRIBE parts")).map((row) => row.column_name));
  if (storage === "parquet") await session.connection.run("CREATE VIEW events AS SELECT * FROM parts");
  else await session.connection.run(`CREATE TABLE events AS SELECT ${handColumns.filter((name) => present.has(name)).map(identifier).join(", ")} FROM parts`);
  await loadPersonTables(session.connection, personRows(data));
  const columns = new Set((await session.rowObjects<{ column_name: string }>("DESCRIBE events")).map((row) => row.column_name));
  return {
    name: storage === "parquet" ? "duckdb-hand-parquet" : "duckdb-hand-native",
    async prepare(benchCase, query) {
      const sql = duckDbHandSql[benchCase.name]!({ query, columns });
      return { sql, run: () => session.rowObjects<Record<string, unknown>>(sql) };
    },
    close: () => session.close(),
  };
}

async function openCompiledDuckDb(data: BenchData): Promise<Baseline> {
  const session = await DuckDbSession.open(duckDbThreads);
  return {
    name: "duckdb-compiled",
    async prepare(_, query) {
      const compiled = await prepareDuckDb(session, data, query);
      return { sql: `${compiled.sql}\n-- parameters: ${JSON.stringify(compiled.params)}`, run: () => runDuckDb(session, compiled) };
    },
    close: () => session.close(),
  };
}

export async function openBaseline(name: BaselineName, data: BenchData): Promise<Baseline> {
  if (name === "duckdb-hand-parquet") return openHandDuckDb(data, "parquet");
  if (name === "duckdb-hand-native") return openHandDuckDb(data, "native");
  if (name === "duckdb-compiled") return openCompiledDuckDb(data);
  const { openChdb } = await import("./chdb-baseline.ts");
  return openChdb(data);
}
