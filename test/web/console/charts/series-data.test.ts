// What a series chart plots and how a large answer is drawn: 10,000 points are drawn without
// symbols, animation or per-bar work (lines are also sampled with LTTB in series-chart.ts),
// small answers keep them; stacked shares sum to one, a log axis leaves out what it cannot
// show, and hidden series leave the others' values as they are.
import { describe, expect, test } from "bun:test";
import { largeDataDrawing, plottedValues, type SeriesChartSettings } from "../../../../web/console/charts/series-data.ts";
import type { SeriesSet } from "../../../../web/console/charts/series-set.ts";

const settings: SeriesChartSettings = { style: "line", showValues: false, logScale: false, stackedPercent: false, compact: false };

const set: SeriesSet = {
  categories: ["2026-01-01", "2026-01-02", "2026-01-03"],
  timeAxis: true,
  series: [
    { key: "a", name: "a", values: [1, 0, null], total: 1, format: String },
    { key: "b", name: "b", values: [3, 2, 4], total: 9, format: String },
  ],
  axisFormat: String,
  counts: true,
};
const visible = set.series.map((series, index) => ({ series, index }));

describe("largeDataDrawing", () => {
  test("10,000 points: no animation, no symbols, bars in large mode", () => {
    expect(largeDataDrawing(10_000, 1)).toEqual({ animation: false, showSymbol: false, largeBars: true });
  });

  test("a week of days: animated, with symbols, bars drawn one by one", () => {
    expect(largeDataDrawing(7, 3)).toEqual({ animation: true, showSymbol: true, largeBars: false });
  });

  test("animation stops on the points of all series together", () => {
    expect([largeDataDrawing(50, 40).animation, largeDataDrawing(50, 41).animation]).toEqual([true, false]);
  });
});

describe("plottedValues", () => {
  test("values as they are, for the visible series only", () => {
    expect(plottedValues(set, visible, settings)).toEqual([[1, 0, null], [3, 2, 4]]);
    expect(plottedValues(set, visible.slice(1), settings)).toEqual([[3, 2, 4]]);
  });

  test("stacked as 100%: each category's shares of the visible series", () => {
    expect(plottedValues(set, visible, { ...settings, style: "stacked_bar", stackedPercent: true })).toEqual([[0.25, 0, null], [0.75, 1, 1]]);
    expect(plottedValues(set, visible, { ...settings, style: "bar", stackedPercent: true })).toEqual([[1, 0, null], [3, 2, 4]]);
  });

  test("a log scale leaves out zeros", () => {
    expect(plottedValues(set, visible, { ...settings, logScale: true })).toEqual([[1, null, null], [3, 2, 4]]);
  });
});
