// Cohorts in the Query IR, worked out by hand: filters (global and per series, in and not_in),
// breakdowns (a row per cohort, a person in several cohorts counted in each, members merged
// away counted as their survivor), a cohort without a stored membership, the SQL include_sql
// returns, and what validation refuses.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { executeQuery } from "../../../engine/execute.ts";
import { InvalidQueryError, validateQuery } from "../../../engine/ir/validate.ts";
import { breakdownCohortsMax } from "../../../engine/ir/schema.ts";
import { MissingCohortError } from "../../../engine/cohorts/membership.ts";
import { datasetOf, type Dataset } from "../dataset.ts";
import { event } from "../hand-run.ts";

const now = Date.parse("2026-11-21T12:00:00Z");
const limits = { rowsMax: 1_000_000, deadline: Number.MAX_SAFE_INTEGER };
const at = (date: string, time = "10:00") => Date.parse(`${date}T${time}:00Z`);
const paying = "0193a7c2-0000-7000-8000-0000000000a1";
const active = "0193a7c2-0000-7000-8000-0000000000a2";
const never = "0193a7c2-0000-7000-8000-0000000000a3";
const missing = "0193a7c2-0000-7000-8000-0000000000a4";

// Persons 0-3; 3 was merged into 0. Paying: stored as 2 and 3 (so 0 and 2 now); active: 0 and 1; never: nobody.
const canonical = Int32Array.of(0, 1, 2, 0);
const events = [
  event(0, "view", at("2026-11-02")), event(3, "view", at("2026-11-02", "11:00")), event(0, "buy", at("2026-11-03")),
  event(1, "view", at("2026-11-02")), event(1, "buy", at("2026-11-04")),
  event(2, "view", at("2026-11-03")),
];

let dataset: Dataset;
beforeAll(async () => {
  dataset = await datasetOf(events, { canonical, cohorts: new Map([[paying, Int32Array.of(2, 3)], [active, Int32Array.of(0, 1)], [never, new Int32Array(0)]]) });
});
afterAll(() => dataset.close());

const run = async (document: unknown, includeSql = false) => executeQuery(validateQuery(document, "UTC", now), dataset.source(), limits, includeSql);
const trends = (insight: Record<string, unknown>, filters: unknown[] = []) => ({
  ir_version: 1, date_range: { from: "2026-11-02", to: "2026-11-04" }, filters, insight: { kind: "trends", series: [{ event: "view" }], ...insight },
});
const cohortFilter = (cohort_id: string, operator: string) => ({ type: "cohort", cohort_id, operator });

describe("cohort filters", () => {
  test("in and not_in, global or per series; a merged-away member counts as its survivor", async () => {
    const totals = async (filters: unknown[], seriesFilters: unknown[] = []) =>
      ((await run(trends({ series: [{ event: "view", filters: seriesFilters }] }, filters))).result as any).rows[0].total;
    expect(await totals([cohortFilter(paying, "in")])).toBe(3);
    expect(await totals([cohortFilter(paying.toUpperCase(), "not_in")])).toBe(1);
    expect(await totals([], [cohortFilter(active, "in")])).toBe(3);
    expect(await totals([cohortFilter(active, "in"), cohortFilter(paying, "in")])).toBe(2);
    expect(await totals([cohortFilter(never, "in")])).toBe(0);
    expect(await totals([cohortFilter(never, "not_in")])).toBe(4);
  });

  test("a cohort without a stored membership fails before any row is read", async () => {
    const query = validateQuery(trends({}, [cohortFilter(missing, "in")]), "UTC", now);
    await expect(executeQuery(query, dataset.source(), { ...limits, rowsMax: 0 })).rejects.toThrow(new MissingCohortError(missing));
  });
});

describe("cohort breakdowns", () => {
  test("trends: a row per series and cohort in the order named; a person in two cohorts counts in both", async () => {
    const { result } = await run(trends({ interval: "day", series: [{ event: "view" }, { event: "buy", math: "unique_persons" }], breakdown: { type: "cohort", cohort_ids: [active, paying, never] } }));
    const row = (series: number, event: string, math: string, breakdown_value: string, values: number[], total: number) =>
      ({ series, event, math, breakdown_value, breakdown_other: false, values, total });
    expect(result).toEqual({
      kind: "trends", interval: "day", time_zone: "UTC", buckets: ["2026-11-02", "2026-11-03", "2026-11-04"],
      rows: [
        row(0, "view", "total", active, [3, 0, 0], 3),
        row(0, "view", "total", paying, [2, 1, 0], 3),
        row(0, "view", "total", never, [0, 0, 0], 0),
        row(1, "buy", "unique_persons", active, [0, 1, 1], 2),
        row(1, "buy", "unique_persons", paying, [0, 1, 0], 1),
        row(1, "buy", "unique_persons", never, [0, 0, 0], 0),
      ],
    });
  });

  test("funnel: each cohort's persons, the overall steps counting each person once", async () => {
    const { result } = await run({
      ir_version: 1, date_range: { from: "2026-11-02", to: "2026-11-04" },
      insight: { kind: "funnel", series: [{ event: "view" }, { event: "buy" }], breakdown: { type: "cohort", cohort_ids: [paying, active] } },
    });
    const counts = (funnel: any) => funnel.steps.map((step: any) => step.count);
    expect(counts(result)).toEqual([3, 2]);
    expect((result as any).breakdowns.map((breakdown: any) => [breakdown.breakdown_value, breakdown.breakdown_other, counts(breakdown)])).toEqual([
      [paying, false, [2, 1]],
      [active, false, [2, 2]],
    ]);
  });

  test("include_sql reads cohort_members with the cohort ids as parameters", async () => {
    const { sql } = await run(trends({ breakdown: { type: "cohort", cohort_ids: [paying] } }, [cohortFilter(active, "not_in")]), true);
    expect(sql!.sql).toContain("e.person_id NOT IN (SELECT person_id FROM cohort_members WHERE cohort_id = $");
    expect(sql!.sql).toContain("JOIN cohort_members m ON m.person_id = e.person_id");
    expect(sql!.sql).not.toContain(paying);
    expect(sql!.params).toContain(paying);
    expect(sql!.params).toContain(active);
  });
});

describe("validation", () => {
  test("refusals name the member at fault", () => {
    const ids = (count: number) => Array.from({ length: count }, (_, index) => `0193a7c2-0000-7000-8000-${String(index).padStart(12, "0")}`);
    const cases: [unknown, string][] = [
      [trends({}, [{ type: "cohort", cohort_id: "paying", operator: "in" }]), `/filters/0/cohort_id: expected string to match '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'`],
      [trends({}, [{ type: "cohort", cohort_id: paying, operator: "eq" }]), "/filters/0/operator: must be one of in, not_in"],
      [trends({}, [{ type: "cohort", cohort_id: paying, operator: "in", key: "x" }]), "/filters/0/key: is not a member of this object"],
      [trends({}, [{ type: "segment", key: "x", operator: "in" }]), "/filters/0/type: must be one of event, person, column, cohort"],
      [trends({ breakdown: { type: "cohort" } }), "/insight/breakdown/cohort_ids: is required for a cohort breakdown"],
      [trends({ breakdown: { type: "cohort", cohort_ids: [] } }), "/insight/breakdown/cohort_ids: expected array length to be greater or equal to 1"],
      [trends({ breakdown: { type: "cohort", cohort_ids: ids(breakdownCohortsMax + 1) } }), `/insight/breakdown/cohort_ids: expected array length to be less or equal to ${breakdownCohortsMax}`],
      [trends({ breakdown: { type: "cohort", cohort_ids: [paying, paying.toUpperCase()] } }), `/insight/breakdown/cohort_ids/1: names cohort ${paying} a second time`],
      [trends({ breakdown: { type: "cohort", cohort_ids: [paying], limit: 3 } }), "/insight/breakdown/limit: does not apply to a cohort breakdown (it has a row per cohort)"],
      [trends({ breakdown: { type: "cohort", cohort_ids: [paying], property: "plan" } }), "/insight/breakdown/property: does not apply to a cohort breakdown (it has a row per cohort)"],
      [trends({ breakdown: { type: "event", property: "plan", cohort_ids: [paying] } }), "/insight/breakdown/cohort_ids: applies to cohort breakdowns only"],
      [{ ...trends({}), insight: { kind: "retention", series: [{ event: "view" }], breakdown: { type: "cohort", cohort_ids: [paying] } } }, "/insight/breakdown: applies to trends, funnel insights only"],
    ];
    const problem = (document: unknown) => {
      try {
        validateQuery(document, "UTC", now);
        return "valid";
      } catch (error) {
        if (error instanceof InvalidQueryError) return error.message;
        throw error;
      }
    };
    expect(cases.map(([document]) => problem(document))).toEqual(cases.map(([, message]) => message));
    expect(problem(trends({ breakdown: { type: "cohort", cohort_ids: ids(breakdownCohortsMax) } }))).toBe("valid");
  });
});
