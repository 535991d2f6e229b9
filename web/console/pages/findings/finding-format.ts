// How findings, rules and their parts read: labels for the API's words, what a rule watches,
// its thresholds in a line, and a finding's numbers (value against baseline, the change).
import type { Cadence, Direction, FindingDto, RuleDto, RuleTarget, RuleTargetKind, Severity } from "../../api/findings-api.ts";
import { formatNumber, formatPercent } from "../../format/numbers.ts";

export const severityLabels: Record<Severity, string> = { info: "Info", warning: "Warning", critical: "Critical" };
export const severityBadges: Record<Severity, string> = { info: "badge", warning: "badge badge-warning", critical: "badge badge-danger" };
export const cadenceLabels: Record<Cadence, string> = { hourly: "Hourly", daily: "Daily" };
export const directionLabels: Record<Direction, string> = { drop: "a drop", spike: "a spike", both: "a drop or a spike" };
export const targetKindLabels: Record<RuleTargetKind, string> = {
  event_volume: "An event's volume",
  funnel_conversion: "Conversion between two events",
  metric: "A metric",
  ingestion_warnings: "Ingestion warnings",
};

/** What a rule watches, in words: "Volume of signup", "Conversion from signup to purchase". */
export function describeTarget(target: RuleTarget): string {
  switch (target.kind) {
    case "event_volume":
      return `Volume of ${target.event ?? "?"}`;
    case "funnel_conversion":
      return `Conversion from ${target.from_event ?? "?"} to ${target.to_event ?? "?"}`;
    case "metric":
      return `Metric ${target.key ?? "?"}`;
    case "ingestion_warnings":
      return target.key ? `Ingestion warnings (${target.key})` : "Ingestion warnings (every reason)";
  }
}

/** A rule's thresholds in one line: "a drop · change ≥ 30% · z ≥ 3 · baseline 4 weeks · min volume 20". */
export function describeThresholds(rule: Pick<RuleDto, "thresholds">): string {
  const { direction, relative_change, absolute_change, anomaly_z, baseline_weeks, min_volume } = rule.thresholds;
  const parts = [directionLabels[direction]];
  if (relative_change !== null) parts.push(`change ≥ ${formatPercent(relative_change)}`);
  if (absolute_change !== null) parts.push(`change ≥ ${formatNumber(absolute_change)}`);
  if (anomaly_z !== null) parts.push(`z ≥ ${formatNumber(anomaly_z)}`);
  parts.push(`baseline ${baseline_weeks} ${baseline_weeks === 1 ? "week" : "weeks"}`, `min volume ${formatNumber(min_volume)}`);
  return parts.join(" · ");
}

/** A conversion is in percent (42 → 42%), its change in points; every other target counts or measures. */
export const formatValue = (target: RuleTarget, value: number) => (target.kind === "funnel_conversion" ? `${formatNumber(value)}%` : formatNumber(value));

const signed = (text: string, value: number) => (value > 0 ? `+${text}` : text);

/** The change alone: "-780, -43.3%" (a conversion's in points: "-9 points, -30%"). */
export function describeDelta(finding: FindingDto): string {
  const change = finding.target.kind === "funnel_conversion" ? `${signed(formatNumber(finding.change), finding.change)} points` : signed(formatNumber(finding.change), finding.change);
  return finding.relative_change === null ? change : `${change}, ${signed(formatPercent(finding.relative_change), finding.relative_change)}`;
}

/** "1,020 against 1,800 (-780, -43.3%)". */
export const describeChange = (finding: FindingDto) =>
  `${formatValue(finding.target, finding.value)} against ${formatValue(finding.target, finding.baseline)} (${describeDelta(finding)})`;

/** A finding's period in the project's zone: "Nov 27, 14:00 – 15:00" or "Nov 27". */
export function describePeriod(finding: Pick<FindingDto, "period_start" | "period_end" | "cadence">, timeZone: string): string {
  const day = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", year: "numeric", timeZone });
  if (finding.cadence === "daily") return day.format(new Date(finding.period_start));
  const time = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone });
  return `${day.format(new Date(finding.period_start))}, ${time.format(new Date(finding.period_start))}–${time.format(new Date(finding.period_end))}`;
}
