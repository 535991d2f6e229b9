// boundedJson: answers within the limits are sent as they are; lists, strings, nesting and the
// whole answer are cut at their limits, and the answer says what was cut, as data.
import { expect, test } from "bun:test";
import { boundedJson } from "../../server/mcp/bounded.ts";
import { resultDepthMax, resultItemsMax, resultStringCharsMax, resultTextCharsMax } from "../../server/mcp/mcp-limits.ts";

const parsed = (answer: Record<string, unknown>) => JSON.parse(boundedJson(answer));
const nested = (depth: number): unknown => (depth === 0 ? "leaf" : { d: nested(depth - 1) });

test("an answer within every limit is its own JSON", () => {
  const answer = { rows: Array.from({ length: resultItemsMax }, (_, i) => [i, "x".repeat(resultStringCharsMax)]), deep: nested(resultDepthMax - 1) };
  expect(boundedJson(answer)).toBe(JSON.stringify(answer));
});

test("lists past the limit are cut and named by JSON Pointer (keys escaped as RFC 6901 says)", () => {
  const long = Array.from({ length: resultItemsMax + 1 }, (_, i) => i);
  expect(parsed({ "a/b~c": { list: long } })).toEqual({
    "a/b~c": { list: long.slice(0, resultItemsMax) },
    limits_applied: {
      lists_cut: [{ path: "/a~1b~0c/list", shown: resultItemsMax, total: resultItemsMax + 1 }],
      strings_cut: 0,
      values_too_deep: 0,
      note: `The answer was shortened: 1 list(s) cut to their first ${resultItemsMax} items. Narrow the request (filters, a shorter date range, LIMIT) to see the rest.`,
    },
  });
});

test("values nested past the depth limit become null, and are counted", () => {
  expect(parsed({ deep: nested(resultDepthMax) }).limits_applied).toEqual({
    lists_cut: [], strings_cut: 0, values_too_deep: 1,
    note: `The answer was shortened: 1 value(s) nested deeper than ${resultDepthMax} levels left out. Narrow the request (filters, a shorter date range, LIMIT) to see the rest.`,
  });
});

test("an answer over the size limit gets shorter lists until it fits", () => {
  const row = ["r".repeat(resultStringCharsMax), "s".repeat(resultStringCharsMax)];
  const answer = { rows: Array.from({ length: resultItemsMax }, () => row) };
  expect(JSON.stringify(answer).length).toBeGreaterThan(resultTextCharsMax);
  const text = boundedJson(answer);
  expect(text.length).toBeLessThanOrEqual(resultTextCharsMax);
  const body = JSON.parse(text);
  expect(body.rows).toHaveLength(50);
  expect(body.limits_applied.lists_cut).toEqual([{ path: "/rows", shown: 50, total: resultItemsMax }]);
});

test("an answer too large even with one item per list says so and nothing else", () => {
  const wide = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, "w".repeat(resultStringCharsMax)]));
  expect(parsed(wide)).toEqual({
    limits_applied: {
      lists_cut: [], strings_cut: 0, values_too_deep: 0,
      note: `The answer is larger than ${resultTextCharsMax} characters even with every list cut to one item. Narrow the request.`,
    },
  });
});
