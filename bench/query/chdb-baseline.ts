// ClickHouse's engine through chdb, 2 threads, reading the same Parquet parts with file().
// chdb ships libchdb (543 MiB) in a platform package from the npm registry (no download at
// install), so it is an opt-in install in bench/query/chdb/ rather than a dependency of the
// service: `cd bench/query/chdb && npm install`. Without it the benchmark runs without this baseline.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Baseline } from "./baselines.ts";
import { partPaths } from "./baselines.ts";
import { chdbHandSql, chdbTables } from "./chdb-hand.ts";
import type { BenchData } from "./data.ts";
import { duckDbThreads } from "./engines.ts";
import { personRows } from "./person-tables.ts";

const chdbModule = join(import.meta.dir, "chdb", "node_modules", "chdb");

/** The part of chdb's API the baseline uses. */
interface ChdbSession {
  queryAsync(sql: string, options: { format: string }): Promise<{ text(): string }>;
  close(): void;
}

export const chdbInstalled = (): boolean => existsSync(chdbModule);

/** The same threads as DuckDB; NULL keys in grouping sets' totals and 64-bit integers as JSON numbers, as the converters read them. */
const sessionSettings = [`max_threads = ${duckDbThreads}`, "group_by_use_nulls = 1", "output_format_json_quote_64bit_integers = 0"];

/** The parts as one file() glob, which must name exactly the live parts (compaction leaves none behind). */
function partsTable(data: BenchData): string {
  const paths = partPaths(data);
  const root = dirname(dirname(paths[0]!));
  const glob = join(root, "*", "*.parquet");
  const matched = [...new Bun.Glob("*/*.parquet").scanSync(root)].map((path) => join(root, path)).sort();
  if (matched.join("\n") !== [...paths].sort().join("\n")) throw new Error(`the parts under ${root} are not exactly the live parts`);
  return `file('${glob}', Parquet)`;
}

export async function openChdb(data: BenchData): Promise<Baseline> {
  if (!chdbInstalled()) throw new Error("chdb is not installed: cd bench/query/chdb && npm install");
  const { Session } = (await import(chdbModule)) as { Session: new () => ChdbSession };
  const session = new Session();
  const run = async (sql: string) => (await session.queryAsync(sql, { format: "JSONEachRow" })).text();
  for (const setting of sessionSettings) await run(`SET ${setting}`);
  const csvDir = mkdtempSync(join(tmpdir(), "bench-chdb-"));
  const rows = personRows(data);
  const tables: [string, string, string, [number, number | string][]][] = [
    [chdbTables.overrides, "person_index Int32, person_id Int32", "person_index", rows.overrides],
    [chdbTables.plans, "person_id Int32, plan String", "person_id", rows.plans],
    [chdbTables.created, "person_id Int32, created_ms Int64", "person_id", rows.created],
  ];
  for (const [name, columns, key, values] of tables) {
    const csv = join(csvDir, `${name}.csv`);
    writeFileSync(csv, values.map((row) => row.join(",")).join("\n"));
    await run(`CREATE TABLE ${name} (${columns}) ENGINE = Join(ANY, LEFT, ${key})`);
    await run(`INSERT INTO ${name} SELECT * FROM file('${csv}', CSV, '${columns}')`);
  }
  rmSync(csvDir, { recursive: true });
  const parts = partsTable(data);
  return {
    name: "chdb",
    async prepare(benchCase, query) {
      const sqlOf = chdbHandSql[benchCase.name];
      if (!sqlOf) return null;
      const sql = sqlOf({ query, parts });
      return {
        sql,
        run: async () => (await run(sql)).split("\n").filter((line) => line.length > 0).map((line) => JSON.parse(line) as Record<string, unknown>),
      };
    },
    close: () => session.close(),
  };
}
