// The one line a person reads about a finding: what moved, by how much, against what, e.g.
//   signup fell 62% (38 vs a median of 100 on Mondays 14:00–15:00 over 4 weeks)
// Event names, metric names and reasons come from ingest or from people: they are kept as
// text (control characters, which would break the line or a log, become spaces) and never
// read as markup here; each delivery format escapes the line for itself.
import type { RegionFindingsProject, RuleTarget } from "../findings-types.ts";
import { periodDescription, type Period } from "./periods.ts";
import type { Judgement } from "./statistics.ts";

/** Names in a summary are cut to this many characters (an event name is at most 200). */
export const summaryNameCharsMax = 200;

const asText = (name: string) => {
  const line = name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ");
  return line.length > summaryNameCharsMax ? `${line.slice(0, summaryNameCharsMax - 1)}…` : line;
};

/** A number for people: whole when large, at most two decimals otherwise. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const rounded = Math.abs(value) >= 100 ? Math.round(value) : Math.round(value * 100) / 100;
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

interface Wording {
  subject: string;
  value: (value: number) => string;
  /** How the change is said: "62%" or "12.5 points". */
  change: (judgement: Judgement) => string;
}

const relative = (judgement: Judgement) =>
  judgement.relativeChange === null ? `from ${formatNumber(judgement.baseline)}` : `${formatNumber(Math.abs(judgement.relativeChange) * 100)}%`;

function wording(project: RegionFindingsProject, target: RuleTarget): Wording {
  const plain = (value: number) => formatNumber(value);
  switch (target.kind) {
    case "event_volume":
      return { subject: asText(target.event ?? ""), value: plain, change: relative };
    case "funnel_conversion":
      return {
        subject: `conversion ${asText(target.from_event ?? "")} → ${asText(target.to_event ?? "")}`,
        value: (value) => `${formatNumber(value)}%`,
        change: (judgement) => `${formatNumber(Math.abs(judgement.change))} points`,
      };
    case "metric": {
      const metric = project.metrics.find((candidate) => candidate.key === target.key);
      const unit = metric?.unit ? ` ${asText(metric.unit)}` : "";
      return { subject: `metric ${asText(metric?.name ?? target.key ?? "")}`, value: (value) => `${formatNumber(value)}${unit}`, change: relative };
    }
    case "ingestion_warnings":
      return { subject: target.key ? `ingestion warnings (${asText(target.key)})` : "ingestion warnings", value: plain, change: relative };
  }
}

export function summaryLine(project: RegionFindingsProject, target: RuleTarget, period: Period, judgement: Judgement, baselinePeriods: number): string {
  const words = wording(project, target);
  const verb = judgement.change < 0 ? "fell" : "rose";
  const weeks = `${baselinePeriods} week${baselinePeriods === 1 ? "" : "s"}`;
  return `${words.subject} ${verb} ${words.change(judgement)} (${words.value(judgement.value)} vs a median of ${words.value(judgement.baseline)} on ${periodDescription(period)} over ${weeks})`;
}
