// The executor against DuckDB on the compiled funnel and paths SQL when a person's events
// share milliseconds (timestamps on a 5-minute grid): the rules for equal times (a later
// step needs a later millisecond; a strict step is the next instant, whatever events it
// holds; unordered steps count from the start's own instant; ties between starts go to the
// smallest breakdown value; a path orders equal times by value) are reached here, which the
// main differential test's millisecond timestamps almost never do.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { executeQuery } from "../../../engine/execute.ts";
import { validateQuery } from "../../../engine/ir/validate.ts";
import type { Query } from "../../../engine/ir/query.ts";
import { DuckDbSession } from "../../../engine/sql/duckdb.ts";
import { funnelFromSql, type FunnelSqlRow } from "../../../engine/sql/funnel-sql.ts";
import { pathsFromSql, type PathsSqlRow } from "../../../engine/sql/paths-sql.ts";
import type { FunnelResult } from "../../../engine/kinds/funnel.ts";
import type { PathsResult } from "../../../engine/kinds/paths.ts";
import { buildDataset, type Dataset } from "../dataset.ts";
import { compareRandomQueries, compiledSqlRows } from "../compiled-sql-rows.ts";
import { randomFunnelIr, randomPathsIr } from "../random-ir.ts";

const zone = "Europe/Paris";
const now = Date.parse("2026-11-21T12:00:00Z");
const limits = { rowsMax: 500_000_000, deadline: Number.MAX_SAFE_INTEGER };
const tickMs = 5 * 60_000;
const queriesPerKind = 100;

let dataset: Dataset;
let duck: DuckDbSession;

beforeAll(async () => {
  dataset = await buildDataset({ seed: 43, persons: 40, events: 3000, start: Date.parse("2026-10-20T00:00:00Z"), days: 11, tickMs });
  duck = await DuckDbSession.open(2);
});

afterAll(async () => {
  duck.close();
  await dataset.close();
});

/** Random documents of one kind compared through both engines (compiled-sql-rows.ts). */
function compareRandom<Result, Row>(
  seed: number, generate: (random: () => number) => Record<string, unknown>, fromSql: (query: Query, rows: Row[]) => unknown, found: (result: Result) => boolean,
): Promise<number> {
  return compareRandomQueries<Result, Row>({ duck, dataset, zone, now, limits, queries: queriesPerKind }, seed, generate, (query, _, rows) => fromSql(query, rows), found);
}

describe("events at the same millisecond: executor equals DuckDB", () => {
  test("the dataset has persons with several events at one millisecond", async () => {
    // Running a query's compiled SQL defines the events view over the dataset's files.
    const query = validateQuery({ ir_version: 1, date_range: { from: "2026-10-19", to: "2026-11-03" }, insight: { kind: "paths" } }, zone, now);
    await compiledSqlRows(duck, dataset, query, limits, (await executeQuery(query, dataset.source(), limits, true)).sql!);
    const [[instants]] = (await duck.run("SELECT count(*) FROM (SELECT person_id, timestamp FROM events GROUP BY ALL HAVING count(*) > 1)")).rows as [[bigint]];
    expect(Number(instants)).toBeGreaterThan(100);
  });

  test(`funnel: ${queriesPerKind} random queries`, async () => {
    const converted = await compareRandom<FunnelResult, FunnelSqlRow>(21, randomFunnelIr, funnelFromSql, (result) => result.steps[1]!.count > 0);
    expect(converted).toBeGreaterThan(queriesPerKind / 3);
  });

  test(`paths: ${queriesPerKind} random queries`, async () => {
    const withEdges = await compareRandom<PathsResult, PathsSqlRow>(22, randomPathsIr, (_, rows) => pathsFromSql(rows), (result) => result.edges.length > 0);
    expect(withEdges).toBeGreaterThan(queriesPerKind / 2);
  });
});
