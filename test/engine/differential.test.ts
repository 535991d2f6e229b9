// The executor against DuckDB running the compiled SQL on the same Parquet files: hundreds of
// random valid queries (seeded), results equal (integers exactly, floats to 1e-9 relative).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { executeQuery, type QueryLimits } from "../../engine/execute.ts";
import { validateQuery } from "../../engine/ir/validate.ts";
import { DuckDbSession } from "../../engine/sql/duckdb.ts";
import { trendsFromSql, type TrendsSqlRow } from "../../engine/sql/trends-sql.ts";
import type { TrendsResult } from "../../engine/kinds/trends.ts";
import type { Query } from "../../engine/ir/query.ts";
import { buildDataset, seededRandom, type Dataset } from "./dataset.ts";
import { compareRandomQueries } from "./compiled-sql-rows.ts";
import { resultDifference } from "../../bench/query/same-result.ts";
import { lifecycleFromSql, type LifecycleSqlRow } from "../../engine/sql/lifecycle-sql.ts";
import type { LifecycleResult } from "../../engine/kinds/lifecycle.ts";
import { revenueFromSql, type RevenueSqlRow } from "../../engine/sql/revenue-sql.ts";
import type { RevenueResult } from "../../engine/kinds/revenue.ts";
import { pathsFromSql, type PathsSqlRow } from "../../engine/sql/paths-sql.ts";
import type { PathsResult } from "../../engine/kinds/paths.ts";
import { randomFunnelIr, randomLifecycleIr, randomPathsIr, randomRetentionIr, randomRevenueIr, randomStickinessIr, randomTrendsIr, withCohorts } from "./random-ir.ts";
import { retentionFromSql, type RetentionSqlRow } from "../../engine/sql/retention-sql.ts";
import type { RetentionResult } from "../../engine/kinds/retention.ts";
import { stickinessFromSql } from "../../engine/sql/stickiness-sql.ts";
import type { StickinessResult } from "../../engine/kinds/stickiness.ts";
import { funnelFromSql, type FunnelSqlRow } from "../../engine/sql/funnel-sql.ts";
import type { RevenueMrrSqlRow } from "../../engine/sql/revenue-mrr-sql.ts";
import { revenueMeasures } from "../../engine/ir/schema.ts";
import { churnLabels, movementLabels } from "../../engine/kinds/revenue-mrr.ts";
import { buildSubscriptionDataset, randomRevenueMeasureIr } from "./subscription-dataset.ts";
import type { FunnelResult } from "../../engine/kinds/funnel.ts";

const zone = "Europe/Paris";
const now = Date.parse("2026-11-21T12:00:00Z");
const limits = { rowsMax: 500_000_000, deadline: Number.MAX_SAFE_INTEGER };
const queriesPerKind = 150;
/** A bound of a few persons per pass, so lifecycle and stickiness also run their multi-pass path. */
const fewPersonsPerPass = { personSlotBytesMax: 40 };
/** No room for trends' single pass by breakdown value, so breakdowns also run the ranking pass. */
const ranksInItsOwnPass = { trendsValueCellsMax: 0 };

let dataset: Dataset;
let duck: DuckDbSession;

beforeAll(async () => {
  dataset = await buildDataset({ seed: 42, persons: 60, events: 4000, start: Date.parse("2026-10-20T00:00:00Z"), days: 11 });
  duck = await DuckDbSession.open(2);
});

afterAll(async () => {
  duck.close();
  await dataset.close();
});

const close = resultDifference;

/** Random documents of one kind compared through both engines (compiled-sql-rows.ts). */
function compareRandom<Result, Row>(
  seed: number,
  generate: (random: () => number) => Record<string, unknown>,
  fromSql: (query: Query, result: Result, rows: Row[]) => unknown,
  found: (result: Result) => boolean,
  alsoWith: Partial<QueryLimits> | null = null,
): Promise<number> {
  return compareRandomQueries({ duck, dataset, zone, now, limits, queries: queriesPerKind }, seed, generate, fromSql, found, alsoWith);
}

describe("executor equals DuckDB on the compiled SQL", () => {
  test(`trends: ${queriesPerKind} random queries`, async () => {
    const nonEmpty = await compareRandom<TrendsResult, TrendsSqlRow>(
      7, randomTrendsIr, (query, result, rows) => trendsFromSql(query, result.buckets, rows), (result) => result.rows.some((row) => (row.total ?? 0) !== 0),
      ranksInItsOwnPass,
    );
    expect(nonEmpty).toBeGreaterThan(queriesPerKind / 2);
  });

  test(`funnel: ${queriesPerKind} random queries`, async () => {
    const converted = await compareRandom<FunnelResult, FunnelSqlRow>(8, randomFunnelIr, (query, _, rows) => funnelFromSql(query, rows), (result) => result.steps[1]!.count > 0);
    expect(converted).toBeGreaterThan(queriesPerKind / 3);
  });

  test(`stickiness: ${queriesPerKind} random queries`, async () => {
    const nonEmpty = await compareRandom<StickinessResult, { intervals: number; persons: number }>(
      9, randomStickinessIr, (query, result, rows) => stickinessFromSql(query, result.intervals.length, rows), (result) => result.persons.some((count) => count > 0),
      fewPersonsPerPass,
    );
    expect(nonEmpty).toBeGreaterThan(queriesPerKind / 2);
  });

  test(`retention: ${queriesPerKind} random queries`, async () => {
    const returning = await compareRandom<RetentionResult, RetentionSqlRow>(
      10, randomRetentionIr, (query, _, rows) => retentionFromSql(query, rows), (result) => result.cohorts.some((cohort) => cohort.values.slice(1).some((count) => count > 0)),
      fewPersonsPerPass,
    );
    expect(returning).toBeGreaterThan(queriesPerKind / 2);
  });

  test(`lifecycle: ${queriesPerKind} random queries`, async () => {
    const statuses = new Set<string>();
    const nonEmpty = await compareRandom<LifecycleResult, LifecycleSqlRow>(12, randomLifecycleIr, (query, _, rows) => lifecycleFromSql(query, rows), (result) => {
      for (const row of result.rows) if (row.values.some((count) => count !== 0)) statuses.add(row.status);
      return result.rows.some((row) => row.values.some((count) => count !== 0));
    }, fewPersonsPerPass);
    expect(nonEmpty).toBeGreaterThan(queriesPerKind / 2);
    expect([...statuses].sort()).toEqual(["dormant", "new", "resurrecting", "returning"]);
  });

  test(`revenue: ${queriesPerKind} random queries`, async () => {
    const nonZero = await compareRandom<RevenueResult, RevenueSqlRow>(13, randomRevenueIr, (query, _, rows) => revenueFromSql(query, rows), (result) => result.rows.some((row) => row.total !== 0));
    expect(nonZero).toBeGreaterThan(queriesPerKind / 2);
  });

  test(`paths: ${queriesPerKind} random queries`, async () => {
    const withEdges = await compareRandom<PathsResult, PathsSqlRow>(14, randomPathsIr, (_, __, rows) => pathsFromSql(rows), (result) => result.edges.length > 0);
    expect(withEdges).toBeGreaterThan(queriesPerKind / 2);
  });
});

describe("cohort filters and breakdowns: executor equals DuckDB (cohort_members)", () => {
  const cohortQueries = 60;
  const byCohort = (breakdown: unknown) => (breakdown as { type?: string } | undefined)?.type === "cohort";

  test(`trends: ${cohortQueries} random queries`, async () => {
    let cohortRows = 0;
    const nonEmpty = await compareRandomQueries<TrendsResult, TrendsSqlRow>(
      { duck, dataset, zone, now, limits, queries: cohortQueries }, 15, withCohorts(randomTrendsIr), (query, result, rows) => trendsFromSql(query, result.buckets, rows),
      (result) => {
        cohortRows += result.rows.filter((row) => row.breakdown_value?.startsWith("0193a7c2") && (row.total ?? 0) !== 0).length;
        return result.rows.some((row) => (row.total ?? 0) !== 0);
      },
    );
    // Cohort filters narrow random filters further: a third with data is plenty to compare.
    expect(nonEmpty).toBeGreaterThan(cohortQueries / 3);
    expect(cohortRows).toBeGreaterThan(cohortQueries / 3);
  });

  test(`funnel: ${cohortQueries} random queries`, async () => {
    let converted = 0;
    const withCohortRows = await compareRandomQueries<FunnelResult, FunnelSqlRow>(
      { duck, dataset, zone, now, limits, queries: cohortQueries }, 16, withCohorts(randomFunnelIr), (query, _, rows) => funnelFromSql(query, rows),
      (result) => {
        if (result.steps[1]!.count > 0) converted++;
        return (result.breakdowns ?? []).some((breakdown) => breakdown.breakdown_value?.startsWith("0193a7c2") && breakdown.steps[0]!.count > 0);
      },
    );
    expect(converted).toBeGreaterThan(cohortQueries / 4);
    expect(withCohortRows).toBeGreaterThan(cohortQueries / 4);
  });

  test("the random documents name cohorts in filters and breakdowns", () => {
    const random = seededRandom(17);
    const documents = Array.from({ length: 100 }, () => withCohorts(randomTrendsIr)(random) as { filters: { type: string }[]; insight: { breakdown?: unknown } });
    expect(documents.filter((document) => byCohort(document.insight.breakdown)).length).toBeGreaterThan(50);
    expect(documents.filter((document) => document.filters.some((filter) => filter.type === "cohort")).length).toBeGreaterThan(50);
  });
});

describe("recent data", () => {
  test("results over buffered rows and sealed segments equal results over the same events in Parquet", async () => {
    const unsealed = await buildDataset({ seed: 42, persons: 60, events: 4000, start: Date.parse("2026-10-20T00:00:00Z"), days: 11, leaveUnsealed: true });
    try {
      const kinds = unsealed.source().chunks.map((ref) => ref.kind);
      expect(new Set(kinds)).toEqual(new Set(["buffer", "segment", "part"]));
      const random = seededRandom(11);
      for (let i = 0; i < 40; i++) {
        const query = validateQuery(randomTrendsIr(random), zone, now);
        const fromParquet = await executeQuery(query, dataset.source(), limits);
        const fromRecent = await executeQuery(query, unsealed.source(), limits);
        expect(close(fromRecent.result, fromParquet.result, "result")).toBeNull();
      }
    } finally {
      await unsealed.close();
    }
  });
});

describe("revenue measures over subscription lifecycles: executor equals DuckDB (subscription-dataset.ts)", () => {
  // Lifecycles from 2026-08-01 over 110 days; ranges start anywhere in them (so every range has
  // history before it), in every interval, across the DST change, half of them converted.
  const start = Date.parse("2026-08-01T00:00:00Z");
  const days = 110;
  const measureQueries = 30;
  let lifecycles: Dataset;

  beforeAll(async () => {
    lifecycles = await buildSubscriptionDataset({ seed: 11, persons: 80, start, days });
  });

  afterAll(async () => {
    await lifecycles.close();
  });

  revenueMeasures.forEach((measure, index) => {
    test(`${measure}: ${measureQueries} random queries`, async () => {
      const seen = new Set<string>();
      const nonZero = await compareRandomQueries<RevenueResult, RevenueSqlRow | RevenueMrrSqlRow>(
        { duck, dataset: lifecycles, zone, now, limits, queries: measureQueries }, 100 + index, randomRevenueMeasureIr(measure, start, days),
        (query, _, rows) => revenueFromSql(query, rows as RevenueSqlRow[]),
        (result) => {
          const found = result.rows.filter((row) => row.values.some((value) => value !== 0));
          for (const row of found) seen.add(`${row.label ?? "value"}${result.currency === undefined ? "" : " converted"}`);
          return found.length > 0;
        },
      );
      expect(nonZero).toBeGreaterThan(measureQueries / 2);
      // Every row kind is met with data, with and without conversion.
      const labels = measure === "mrr_movements" ? movementLabels : measure === "churn_rate" ? churnLabels : ["value"];
      expect([...seen].sort()).toEqual(labels.flatMap((label) => [label, `${label} converted`]).sort());
    }, 300_000);
  });
});
