// What both message formats say about a finding, as plain text: the target in words, numbers
// as a person reads them, the period, and the console links. The Slack format escapes these
// for mrkdwn; the webhook format carries the raw values beside them.
import type { RaisedFinding, RuleTarget, Severity } from "../findings-types.ts";

/** The console page of one finding: the project's findings page with the finding open. */
export function findingUrl(consoleUrl: string, findingId: string): string {
  return `${consoleUrl.replace(/\/+$/, "")}/findings/${encodeURIComponent(findingId)}`;
}

export const severityLabels: Record<Severity, string> = { info: "Info", warning: "Warning", critical: "Critical" };

/** The target in words; event names and keys are data (quoted, never interpreted). */
export function describeTarget(target: RuleTarget): string {
  switch (target.kind) {
    case "event_volume":
      return `volume of event "${target.event ?? ""}"`;
    case "funnel_conversion":
      return `conversion from "${target.from_event ?? ""}" to "${target.to_event ?? ""}"`;
    case "metric":
      return `metric "${target.key ?? ""}"`;
    case "ingestion_warnings":
      return target.key ? `ingestion warnings "${target.key}"` : "ingestion warnings (every reason)";
  }
}

const smallNumber = new Intl.NumberFormat("en-US", { maximumSignificantDigits: 4 });
const largeNumber = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });

/** A value as a person reads it: 12,345.67, 0.1235. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Math.abs(value) < 1 ? smallNumber.format(value) : largeNumber.format(value);
}

/** A change with its sign and, when there is a baseline, its relative size: +120 (+31.5%). */
export function formatChange(finding: Pick<RaisedFinding, "change" | "relativeChange">): string {
  const sign = finding.change > 0 ? "+" : "";
  const absolute = `${sign}${formatNumber(finding.change)}`;
  if (finding.relativeChange === null) return absolute;
  const percent = finding.relativeChange * 100;
  return `${absolute} (${percent > 0 ? "+" : ""}${largeNumber.format(Math.round(percent * 10) / 10)}%)`;
}

/** [start, end) in UTC, minutes kept: 2026-11-27 00:00 – 2026-11-28 00:00 UTC. */
export function formatPeriod(periodStart: string, periodEnd: string): string {
  const minute = (iso: string) => {
    const date = new Date(iso);
    return Number.isNaN(date.getTime()) ? iso : date.toISOString().slice(0, 16).replace("T", " ");
  };
  return `${minute(periodStart)} – ${minute(periodEnd)} UTC`;
}
