// A raised finding's fields as the region API's FindingDto names them (snake_case): the
// region's /findings routes and the webhook's `finding.raised` data both start from these,
// so a receiver and an API reader see one shape.
import type { RaisedFinding } from "./findings-types.ts";

export const findingFields = (finding: RaisedFinding) => ({
  id: finding.id,
  project_id: finding.projectId,
  rule_id: finding.ruleId,
  rule_name: finding.ruleName,
  target: finding.target,
  cadence: finding.cadence,
  severity: finding.severity,
  period_start: finding.periodStart,
  period_end: finding.periodEnd,
  value: finding.value,
  baseline: finding.baseline,
  change: finding.change,
  relative_change: finding.relativeChange,
  anomaly_z: finding.anomalyZ,
  summary: finding.summary,
  raised_at: finding.raisedAt,
});
