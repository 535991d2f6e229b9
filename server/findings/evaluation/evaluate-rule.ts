// One rule's judgement of one period: the target's value and baseline (target-values.ts), the
// statistics (statistics.ts), the rule's min_severity, and the finding it raises.
import { severityRank, type RaisedFinding, type RegionFindingsProject, type RegionFindingsRule } from "../findings-types.ts";
import { baselinePeriods, type Period } from "./periods.ts";
import { judge } from "./statistics.ts";
import { summaryLine } from "./summary.ts";
import { observe, type TargetSources } from "./target-values.ts";

/** Weeks of baseline a rule may take (the control plane validates it; the region bounds it again: ingestion warnings are kept per slot for 14 weeks). */
export const baselineWeeksMax = 13;

/** The finding the rule raises for the period (not stored yet), or null. */
export async function evaluateRule(
  sources: TargetSources,
  project: RegionFindingsProject,
  rule: RegionFindingsRule,
  period: Period,
  now: number,
): Promise<Omit<RaisedFinding, "sent"> | null> {
  const weeks = Math.min(Math.max(Math.floor(rule.thresholds.baseline_weeks), 1), baselineWeeksMax);
  const observation = await observe(sources, project, rule.target, period, baselinePeriods(period, project.timeZone, weeks), now);
  if (observation === null) return null;
  const judgement = judge(rule.thresholds, observation);
  if (judgement === null || severityRank(judgement.severity) < severityRank(rule.min_severity)) return null;
  return {
    id: crypto.randomUUID(),
    projectId: project.projectId,
    ruleId: rule.id,
    ruleName: rule.name,
    target: rule.target,
    cadence: rule.cadence,
    severity: judgement.severity,
    periodStart: new Date(period.start).toISOString(),
    periodEnd: new Date(period.end).toISOString(),
    value: judgement.value,
    baseline: judgement.baseline,
    change: judgement.change,
    relativeChange: judgement.relativeChange,
    anomalyZ: rule.thresholds.anomaly_z === null ? null : judgement.anomalyZ,
    summary: summaryLine(project, rule.target, period, judgement, observation.history.length),
    raisedAt: new Date(now).toISOString(),
  };
}
