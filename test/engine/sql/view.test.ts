// The events view over keys that SQL finds hard to name: a key with NUL (stored before ingest
// refused it) has no column and breaks nothing; quotes, backslashes, newlines, 1,000
// characters and the empty key are quoted; keys that differ only in letter case (which DuckDB's identifiers
// do not tell apart) get distinct columns holding each key's own values, also in a file that
// holds several of them, and the SQL a query compiles reads the same columns /sql's view has.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DuckDbSession } from "../../../engine/sql/duckdb.ts";
import { propertyColumnNames } from "../../../engine/sql/column-names.ts";
import { viewProperties } from "../../../engine/sql/view-files.ts";
import type { ViewFile } from "../../../engine/sql/view.ts";
import { executeQuery } from "../../../engine/execute.ts";
import { validateQuery } from "../../../engine/ir/validate.ts";
import { ChunkStore } from "../../../engine/chunk-store.ts";
import { datasetOf, type Dataset } from "../dataset.ts";
import { event } from "../hand-run.ts";

const long = "k".repeat(1000);
const hostile = { "a\u0000b": 1, 'say "hi"': 2, "back\\slash": 3, "line\nbreak": 4, [long]: 5, "": 6 };
const dayOne = Date.parse("2026-10-20T10:00:00Z");
const dayTwo = Date.parse("2026-10-21T10:00:00Z");
let dataset: Dataset;
let duck: DuckDbSession;
let files: ViewFile[];

beforeAll(async () => {
  dataset = await datasetOf([
    // Day one's part holds plan, Plan and PLAN together; day two's holds Plan alone, and plan_2.
    event(0, "e", dayOne, { properties: { plan: "lower", ...hostile } }),
    event(1, "e", dayOne + 1000, { properties: { Plan: "upper-first" } }),
    event(2, "e", dayOne + 2000, { properties: { PLAN: "shout" } }),
    event(3, "e", dayTwo, { properties: { Plan: "upper-second", plan_2: "a key of its own" } }),
  ]);
  const store = new ChunkStore();
  const source = dataset.source(store);
  files = await Promise.all(source.chunks.map(async (ref) => ({ path: (ref as { path: string }).path, schema: await store.schema(ref) })));
  duck = await DuckDbSession.open(1);
  // As /sql defines it: every key of every file.
  await duck.defineEvents(files, viewProperties(files), dataset.canonical);
});

afterAll(async () => {
  duck.close();
  await dataset.close();
});

describe("the events view's property columns", () => {
  test("names: NUL left out, hostile text quoted, case-alike keys numbered after the first in code-unit order", () => {
    // plan_2 keeps its own name, so Plan and plan, numbered after PLAN, skip the numbers taken.
    expect([...propertyColumnNames("p_", viewProperties(files).keys())].sort()).toEqual([
      ["", "p_"],
      ["PLAN", "p_PLAN"],
      ["Plan", "p_Plan_3"],
      ["back\\slash", "p_back\\slash"],
      [long, `p_${long}`],
      ["line\nbreak", "p_line\nbreak"],
      ["plan", "p_plan_4"],
      ["plan_2", "p_plan_2"],
      ['say "hi"', 'p_say "hi"'],
    ]);
  });

  test("each column holds its own key's values, in the file with case-alike keys and in the file without", async () => {
    const rows = await duck.rowObjects(
      `SELECT distinct_id, "p_", "p_PLAN", "p_Plan_3", "p_plan_4", "p_plan_2", "p_back\\slash", "p_${long}", "p_line\nbreak", "p_say ""hi""" FROM events ORDER BY distinct_id`,
    );
    expect(rows).toEqual([
      { distinct_id: "p0", p_: 6, p_PLAN: null, p_Plan_3: null, p_plan_4: "lower", p_plan_2: null, "p_back\\slash": 3, [`p_${long}`]: 5, "p_line\nbreak": 4, 'p_say "hi"': 2 },
      { distinct_id: "p1", p_: null, p_PLAN: null, p_Plan_3: "upper-first", p_plan_4: null, p_plan_2: null, "p_back\\slash": null, [`p_${long}`]: null, "p_line\nbreak": null, 'p_say "hi"': null },
      { distinct_id: "p2", p_: null, p_PLAN: "shout", p_Plan_3: null, p_plan_4: null, p_plan_2: null, "p_back\\slash": null, [`p_${long}`]: null, "p_line\nbreak": null, 'p_say "hi"': null },
      { distinct_id: "p3", p_: null, p_PLAN: null, p_Plan_3: "upper-second", p_plan_4: null, p_plan_2: "a key of its own", "p_back\\slash": null, [`p_${long}`]: null, "p_line\nbreak": null, 'p_say "hi"': null },
    ]);
    const described = await duck.run("SELECT count(*) AS columns FROM (DESCRIBE events) WHERE column_name LIKE 'p\\_%' ESCAPE '\\'");
    expect(described.rows).toEqual([[9n]]);
  });

  test("a query's compiled SQL reads the same columns as /sql's view: a breakdown by Plan filtered on plan_2", async () => {
    const document = {
      ir_version: 1, date_range: { from: "2026-10-20", to: "2026-10-21" },
      insight: { kind: "trends", series: [{ event: "e" }], breakdown: { type: "event", property: "Plan" } },
      filters: [{ type: "event", key: "plan_2", operator: "is_not_set" }],
    };
    const query = validateQuery(document, "UTC", Date.parse("2026-11-21T12:00:00Z"));
    const execution = await executeQuery(query, dataset.source(), { rowsMax: 1000, deadline: Number.MAX_SAFE_INTEGER }, true);
    // Day one: p0 and p2 have no Plan, p1 has upper-first; day two's event has plan_2.
    expect((execution.result as any).rows.map((row: any) => [row.breakdown_value, row.values])).toEqual([[null, [2, 0]], ["upper-first", [1, 0]]]);
    const rows = await duck.rowObjects<{ breakdown_value: string | null; bucket: string | null; value: number }>(execution.sql!.sql, execution.sql!.params);
    // Totals (bucket null) and the non-empty buckets, as the trends SQL gives them.
    expect(rows.map((row) => [row.breakdown_value, row.bucket, row.value])).toEqual([[null, null, 2], [null, "2026-10-20", 2], ["upper-first", null, 1], ["upper-first", "2026-10-20", 1]]);
  });
});

describe("events and stored_events", () => {
  const columnsOf = async (view: string) => (await duck.run(`SELECT column_name FROM (DESCRIBE ${view})`)).rows.map((row) => row[0]);

  test("events is stored_events plus person_id, the person after merges", async () => {
    const stored = await columnsOf("stored_events");
    expect(stored).not.toContain("person_id");
    expect(await columnsOf("events")).toEqual([...stored, "person_id"]);
  });

  test("compiled SQL joins the merge overrides only when the query reads persons", async () => {
    const now = Date.parse("2026-11-21T12:00:00Z");
    const range = { from: "2026-10-20", to: "2026-10-21" };
    const fromClause = async (insight: Record<string, unknown>) => {
      const query = validateQuery({ ir_version: 1, date_range: range, insight }, "UTC", now);
      const { sql } = (await executeQuery(query, dataset.source(), { rowsMax: 1000, deadline: Number.MAX_SAFE_INTEGER }, true)).sql!;
      return /FROM (stored_events e|events e LEFT JOIN persons p|events e)\b/.exec(sql)![1];
    };
    expect(await fromClause({ kind: "trends", series: [{ event: "e", math: "total" }] })).toBe("stored_events e");
    expect(await fromClause({ kind: "revenue", series: [{ event: "e", property: "plan_2" }] })).toBe("stored_events e");
    expect(await fromClause({ kind: "trends", series: [{ event: "e", math: "total" }, { event: "e", math: "unique_persons" }] })).toBe("events e");
    expect(await fromClause({ kind: "trends", series: [{ event: "e" }], breakdown: { type: "person", property: "plan" } })).toBe("events e LEFT JOIN persons p");
    expect(await fromClause({ kind: "stickiness", series: [{ event: "e" }] })).toBe("events e");
  });
});
