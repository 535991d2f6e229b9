// The summary line: each target kind's wording, numbers for people, a change from nothing,
// and names kept as one line of text (control characters become spaces, long names are cut;
// markup is left as it is for each delivery format to escape).
import { describe, expect, test } from "bun:test";
import { formatNumber, summaryLine, summaryNameCharsMax } from "../../../server/findings/evaluation/summary.ts";
import { latestDuePeriod } from "../../../server/findings/evaluation/periods.ts";
import type { Judgement } from "../../../server/findings/evaluation/statistics.ts";
import { projectConfig } from "./fixtures.ts";

const project = projectConfig("p", 1, [], [{ key: "aov", name: "Average order", kind: "mean", query: { event: "purchased", property: "price" }, unit: "EUR" }]);
const monday14 = latestDuePeriod("hourly", "UTC", Date.parse("2026-11-23T15:10:00Z"));
const judgement = (value: number, baseline: number): Judgement => ({
  value, baseline, change: value - baseline, relativeChange: baseline === 0 ? null : (value - baseline) / baseline, anomalyZ: 0, score: 1, severity: "info",
});

describe("summary line", () => {
  test("each target kind", () => {
    expect(summaryLine(project, { kind: "event_volume", event: "signup" }, monday14, judgement(38, 100), 4)).toBe("signup fell 62% (38 vs a median of 100 on Mondays 14:00–15:00 over 4 weeks)");
    expect(summaryLine(project, { kind: "funnel_conversion", from_event: "a", to_event: "b" }, monday14, judgement(12.345, 30), 1))
      .toBe("conversion a → b fell 17.66 points (12.35% vs a median of 30% on Mondays 14:00–15:00 over 1 week)");
    expect(summaryLine(project, { kind: "metric", key: "aov" }, monday14, judgement(150, 100), 3)).toBe("metric Average order rose 50% (150 EUR vs a median of 100 EUR on Mondays 14:00–15:00 over 3 weeks)");
    expect(summaryLine(project, { kind: "ingestion_warnings" }, monday14, judgement(25, 0), 4)).toBe("ingestion warnings rose from 0 (25 vs a median of 0 on Mondays 14:00–15:00 over 4 weeks)");
  });

  test("names stay one line of text, cut at summaryNameCharsMax", () => {
    const hostile = "<b>x</b>\n\r\u2028evil\u0000; DROP TABLE";
    expect(summaryLine(project, { kind: "event_volume", event: hostile }, monday14, judgement(1, 2), 4)).toBe("<b>x</b>   evil ; DROP TABLE fell 50% (1 vs a median of 2 on Mondays 14:00–15:00 over 4 weeks)");
    const long = "e".repeat(summaryNameCharsMax + 1);
    expect(summaryLine(project, { kind: "event_volume", event: long }, monday14, judgement(1, 2), 4)).toStartWith(`${"e".repeat(summaryNameCharsMax - 1)}… fell`);
    expect(summaryLine(project, { kind: "event_volume", event: "e".repeat(summaryNameCharsMax) }, monday14, judgement(1, 2), 4)).toStartWith(`${"e".repeat(summaryNameCharsMax)} fell`);
  });

  test("numbers: whole from 100, two decimals below", () => {
    expect([formatNumber(1234.56), formatNumber(99.999), formatNumber(0.125), formatNumber(-0.001), formatNumber(-150.5)]).toEqual(["1235", "100", "0.13", "0", "-150"]);
  });
});
