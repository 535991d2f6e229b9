// The shapes of an Ask answer's result the console draws: the /query answer's `result` (an
// insight result) or a whole answer becomes what the chart takes; the SQL tool's rows become
// a table; anything else is not drawn.
import { expect, test } from "bun:test";
import { queryAnswerOf, sqlRowsOf } from "../../../../web/console/api/ask-api.ts";

const trends = { kind: "trends", interval: "day", time_zone: "UTC", buckets: ["2026-11-27"], rows: [{ series: 0, event: "signup", math: "total", values: [3], total: 3 }] };
const at = "2026-11-28T07:00:00.000Z";

test("an insight result, or a whole /query answer, is drawn as the chart takes it", () => {
  expect(queryAnswerOf(trends, at)).toEqual({ result: trends, cached: false, computed_at: at, rows_read: 0 } as never);
  const whole = { result: trends, sql: "SELECT 1", cached: true, computed_at: "2026-11-28T06:00:00.000Z", rows_read: 12 };
  expect(queryAnswerOf(whole, at)).toEqual(whole as never);
  for (const other of [null, "text", 3, [trends], { rows: [] }, { result: { rows: [] } }]) expect(queryAnswerOf(other, at)).toBeNull();
});

test("the SQL tool's answer is rows under their columns; anything else is not", () => {
  const answer = { columns: ["event", "times"], types: ["VARCHAR", "BIGINT"], rows: [["signup", 3]], truncated: false };
  expect(sqlRowsOf(answer)).toEqual({ columns: ["event", "times"], rows: [["signup", 3]] });
  for (const other of [null, trends, { columns: ["a"], rows: "x" }, { columns: [1], rows: [] }, { columns: ["a"], rows: [1] }]) expect(sqlRowsOf(other)).toBeNull();
});
