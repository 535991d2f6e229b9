// How the findings pages word rules and findings: each target kind, thresholds with the unset
// ones left out, a drop and a rise with their relative change (none against a zero baseline),
// a conversion in percent and points, and periods in the project's time zone.
import { expect, test } from "bun:test";
import type { FindingDto, Thresholds } from "../../../../../web/console/api/findings-api.ts";
import { describeChange, describePeriod, describeTarget, describeThresholds } from "../../../../../web/console/pages/findings/finding-format.ts";

const thresholds: Thresholds = { direction: "both", absolute_change: null, relative_change: 0.3, anomaly_z: null, baseline_weeks: 4, min_volume: 20 };

const finding = (overrides: Partial<FindingDto>): FindingDto => ({
  id: "f", project_id: "p", rule_id: "r", rule_name: "Rule", target: { kind: "event_volume", event: "signup" }, cadence: "daily", severity: "warning",
  period_start: "2026-11-27T00:00:00.000Z", period_end: "2026-11-28T00:00:00.000Z", value: 5, baseline: 40, change: -35, relative_change: -0.875, anomaly_z: null,
  summary: "", raised_at: "2026-11-28T00:10:00.000Z", sent: true, acknowledged_at: null, acknowledged_by: null, ...overrides,
});

test("each target kind in words, names as given", () => {
  expect([
    describeTarget({ kind: "event_volume", event: "<b>signup</b>" }),
    describeTarget({ kind: "funnel_conversion", from_event: "cart", to_event: "purchase" }),
    describeTarget({ kind: "metric", key: "activation" }),
    describeTarget({ kind: "ingestion_warnings" }),
    describeTarget({ kind: "ingestion_warnings", key: "clock_skew" }),
  ]).toEqual([
    "Volume of <b>signup</b>",
    "Conversion from cart to purchase",
    "Metric activation",
    "Ingestion warnings (every reason)",
    "Ingestion warnings (clock_skew)",
  ]);
});

test("thresholds in a line: only those set, baseline weeks in the singular at one", () => {
  expect(describeThresholds({ thresholds })).toBe("a drop or a spike · change ≥ 30% · baseline 4 weeks · min volume 20");
  expect(describeThresholds({ thresholds: { direction: "drop", absolute_change: 1500, relative_change: null, anomaly_z: 3.5, baseline_weeks: 1, min_volume: 0 } }))
    .toBe("a drop · change ≥ 1,500 · z ≥ 3.5 · baseline 1 week · min volume 0");
});

test("a finding's numbers: a drop, a rise, a zero baseline and a conversion", () => {
  expect(describeChange(finding({}))).toBe("5 against 40 (-35, -87.5%)");
  expect(describeChange(finding({ value: 1800, baseline: 1200, change: 600, relative_change: 0.5 }))).toBe("1,800 against 1,200 (+600, +50%)");
  expect(describeChange(finding({ value: 7, baseline: 0, change: 7, relative_change: null }))).toBe("7 against 0 (+7)");
  expect(describeChange(finding({ target: { kind: "funnel_conversion", from_event: "a", to_event: "b" }, value: 21, baseline: 30, change: -9, relative_change: -0.3 })))
    .toBe("21% against 30% (-9 points, -30%)");
});

test("periods in the project's zone: a day, and an hour with its end", () => {
  expect(describePeriod(finding({}), "UTC")).toBe("Nov 27, 2026");
  expect(describePeriod(finding({ cadence: "hourly", period_start: "2026-11-27T13:00:00.000Z", period_end: "2026-11-27T14:00:00.000Z" }), "Europe/Berlin"))
    .toBe("Nov 27, 2026, 14:00–15:00");
});
