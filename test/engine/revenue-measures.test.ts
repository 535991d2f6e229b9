// The revenue measures (MRR, ARR, movements, churn rate, refunds, revenue per person, with and
// without a target currency): the executor against DuckDB on the compiled SQL over a seeded
// dataset of subscription lifecycles (random documents across bucket edges and the DST change,
// with events before the range), and hand-computed answers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DuckDbSession } from "../../engine/sql/duckdb.ts";
import { revenueFromSql, type RevenueSqlRow } from "../../engine/sql/revenue-sql.ts";
import type { RevenueMrrSqlRow } from "../../engine/sql/revenue-mrr-sql.ts";
import type { RevenueResult } from "../../engine/kinds/revenue.ts";
import { revenueMeasures } from "../../engine/ir/schema.ts";
import { churnLabels, movementLabels } from "../../engine/kinds/revenue-mrr.ts";
import type { Dataset } from "./dataset.ts";
import { compareRandomQueries } from "./compiled-sql-rows.ts";
import { buildSubscriptionDataset, randomRevenueMeasureIr } from "./subscription-dataset.ts";

const zone = "Europe/Paris";
const now = Date.parse("2026-11-21T12:00:00Z");
const start = Date.parse("2026-08-01T00:00:00Z");
const days = 110;
const limits = { rowsMax: 500_000_000, deadline: Number.MAX_SAFE_INTEGER };
const queriesPerMeasure = 30;

let dataset: Dataset;
let duck: DuckDbSession;

beforeAll(async () => {
  dataset = await buildSubscriptionDataset({ seed: 11, persons: 80, start, days });
  duck = await DuckDbSession.open(2);
});

afterAll(async () => {
  duck.close();
  await dataset.close();
});

describe("revenue measures: executor equals DuckDB on the compiled SQL", () => {
  revenueMeasures.forEach((measure, index) => {
    test(`${measure}: ${queriesPerMeasure} random queries`, async () => {
      const seen = new Set<string>();
      const nonZero = await compareRandomQueries<RevenueResult, RevenueSqlRow | RevenueMrrSqlRow>(
        { duck, dataset, zone, now, limits, queries: queriesPerMeasure }, 100 + index, randomRevenueMeasureIr(measure, start, days),
        (query, _, rows) => revenueFromSql(query, rows as RevenueSqlRow[]),
        (result) => {
          const found = result.rows.filter((row) => row.values.some((value) => value !== 0));
          for (const row of found) seen.add(`${row.label ?? "value"}${result.currency === undefined ? "" : " converted"}`);
          return found.length > 0;
        },
      );
      expect(nonZero).toBeGreaterThan(queriesPerMeasure / 2);
      // Every row kind is met with data, with and without conversion.
      const labels = measure === "mrr_movements" ? movementLabels : measure === "churn_rate" ? churnLabels : ["value"];
      expect([...seen].sort()).toEqual(labels.flatMap((label) => [label, `${label} converted`]).sort());
    });
  });
});
