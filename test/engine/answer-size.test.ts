// Answers are bounded before they are built: the values of trends (series x breakdown values
// x intervals), retention (cohorts x periods) and revenue (currencies x intervals) at their
// edge, and the JSON text of any answer, which a walk that cannot undercount judges first.
import { describe, expect, test } from "bun:test";
import { answerJson, checkAnswerCells } from "../../engine/answer-size.ts";
import { QueryLimitError } from "../../engine/query-data.ts";
import { event, handRunner } from "./hand-run.ts";

const run = handRunner();
const at = (date: string) => Date.parse(`${date}T10:00:00Z`);
const range = { from: "2026-10-20", to: "2026-10-23" };

/** The query_too_large message a run fails with, or "ok". */
async function verdict(work: Promise<unknown>): Promise<string> {
  try {
    await work;
    return "ok";
  } catch (error) {
    if (error instanceof QueryLimitError) return `${error.code}: ${error.message}`;
    throw error;
  }
}

describe("answer cells", () => {
  const events = ["free", "pro", "team"].map((plan, person) => event(person, "a", at("2026-10-21"), { properties: { plan } }));
  const trends = (limit: number) => ({
    ir_version: 1, date_range: range,
    insight: { kind: "trends", series: [{ event: "a" }, { event: "a", math: "unique_persons" }], breakdown: { type: "event", property: "plan", limit } },
  });

  test("trends: 2 series x 3 breakdown values x 4 day intervals = 24 values pass at 24, not at 23; the other group counts", async () => {
    expect(await verdict(run(events, trends(3), "UTC", {}, { answerCellsMax: 24 }))).toBe("ok");
    expect(await verdict(run(events, trends(3), "UTC", {}, { answerCellsMax: 23 }))).toBe(
      "query_too_large: the answer would hold 2 series x 3 breakdown values x 4 day intervals = 24 values; at most 23 (use fewer series, a lower breakdown limit, a longer interval or a shorter date range)",
    );
    // Two values and "other": still three groups.
    expect(await verdict(run(events, trends(2), "UTC", {}, { answerCellsMax: 23 }))).toBe(
      "query_too_large: the answer would hold 2 series x 3 breakdown values x 4 day intervals = 24 values; at most 23 (use fewer series, a lower breakdown limit, a longer interval or a shorter date range)",
    );
    expect(await verdict(run(events, trends(1), "UTC", {}, { answerCellsMax: 16 }))).toBe("ok");
  });

  test("trends without a breakdown: series x intervals", async () => {
    const document = { ir_version: 1, date_range: range, insight: { kind: "trends", interval: "hour", series: [{ event: "a" }] } };
    expect(await verdict(run(events, document, "UTC", {}, { answerCellsMax: 96 }))).toBe("ok");
    expect(await verdict(run(events, document, "UTC", {}, { answerCellsMax: 95 }))).toBe(
      "query_too_large: the answer would hold 1 series x 96 hour intervals = 96 values; at most 95 (use fewer series, a lower breakdown limit, a longer interval or a shorter date range)",
    );
  });

  test("retention: cohorts x periods", async () => {
    const document = { ir_version: 1, date_range: range, insight: { kind: "retention", periods: 3, series: [{ event: "a" }] } };
    expect(await verdict(run(events, document, "UTC", {}, { answerCellsMax: 12 }))).toBe("ok");
    expect(await verdict(run(events, document, "UTC", {}, { answerCellsMax: 11 }))).toBe(
      "query_too_large: the answer would hold 4 day cohorts x 3 periods = 12 values; at most 11 (use fewer periods, a longer interval or a shorter date range)",
    );
  });

  test("revenue: the currencies seen (any text in the currency property, and none) x intervals", async () => {
    const paid = ["USD", "EUR", "not a currency"].map((currency, person) => event(person, "paid", at("2026-10-22"), { properties: { amount: 100, currency } }));
    paid.push(event(3, "paid", at("2026-10-22"), { properties: { amount: 100 } }));
    const document = { ir_version: 1, date_range: range, insight: { kind: "revenue", series: [{ event: "paid" }] } };
    expect(await verdict(run(paid, document, "UTC", {}, { answerCellsMax: 16 }))).toBe("ok");
    expect(await verdict(run(paid, document, "UTC", {}, { answerCellsMax: 15 }))).toBe(
      "query_too_large: the answer would hold 4 currencies x 4 day intervals = 16 values; at most 15 (use a longer interval or a shorter date range, or filter on fewer currencies)",
    );
  });

  test("checkAnswerCells names every dimension and their product", () => {
    expect(() => checkAnswerCells([{ count: 20, name: "series" }, { count: 1001, name: "breakdown values" }, { count: 8760, name: "hour intervals" }], 1_000_000, "narrow it")).toThrow(
      "the answer would hold 20 series x 1001 breakdown values x 8760 hour intervals = 175375200 values; at most 1000000 (narrow it)",
    );
    expect(() => checkAnswerCells([{ count: 1000, name: "a" }, { count: 1000, name: "b" }], 1_000_000, "narrow it")).not.toThrow();
  });
});

describe("answer JSON", () => {
  const tooLarge = (max: number) => `the answer would take more than ${max} bytes of JSON; narrow it`;
  const jsonOf = (value: unknown, max: number) => {
    try {
      return answerJson(value, max, "narrow it");
    } catch (error) {
      return (error as Error).message;
    }
  };

  test("the bound at its edge, in UTF-8 bytes, escapes included", () => {
    const value = { label: "x".repeat(20) };
    const size = JSON.stringify(value).length;
    expect([jsonOf(value, size), jsonOf(value, size - 1)]).toEqual([JSON.stringify(value), tooLarge(size - 1)]);
    // Each NUL is six characters of JSON; each é two bytes of UTF-8.
    const escaped = { label: "\u0000".repeat(10) };
    expect([jsonOf(escaped, 72), jsonOf(escaped, 71)]).toEqual([JSON.stringify(escaped), tooLarge(71)]);
    const accented = { label: "é".repeat(10) };
    expect([jsonOf(accented, 32), jsonOf(accented, 31)]).toEqual([JSON.stringify(accented), tooLarge(31)]);
  });

  test("an answer whose strings alone pass the bound is refused without building its JSON", () => {
    const label = "x".repeat(1024 * 1024);
    const edges = Array.from({ length: 1000 }, (_, index) => ({ source_step: 1, source: label, target_step: 2, target: label, persons: index }));
    const original = JSON.stringify;
    let built = 0;
    JSON.stringify = ((...args: Parameters<typeof original>) => {
      built++;
      return original(...args);
    }) as typeof JSON.stringify;
    try {
      expect(jsonOf({ result: { kind: "paths", edges } }, 32 * 1024 * 1024)).toBe(tooLarge(32 * 1024 * 1024));
    } finally {
      JSON.stringify = original;
    }
    expect(built).toBe(0);
  });
});
