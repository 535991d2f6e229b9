// What the control plane's findings destinations and rules are, as the region keeps them, and
// what a raised finding is: shared by the control plane (routes, validation, sync), the region's
// evaluator (server/findings/evaluation/) and its delivery (server/findings/delivery/). Spec 1
// names the resources (DestinationDto, RuleDto); Thresholds, severities and the payloads are
// "not shown" there and decided in docs/findings.md.

/** Lowest first: a rule's or destination's `min_severity` keeps this level and those after it. */
export const severities = ["info", "warning", "critical"] as const;
export type Severity = (typeof severities)[number];
export const severityRank = (severity: Severity): number => severities.indexOf(severity);

export const destinationKinds = ["slack", "webhook"] as const;
export type DestinationKind = (typeof destinationKinds)[number];

/**
 * `event_volume`: how many times `event` happened in the period; `funnel_conversion`: the share
 * of persons who did `from_event` in the period and then `to_event` (within the same period);
 * `metric`: the value of the project's metric `key` in the period; `ingestion_warnings`: how many
 * ingestion warnings the project had in the period (`key`: one warning reason, or every reason).
 */
export const ruleTargetKinds = ["event_volume", "funnel_conversion", "metric", "ingestion_warnings"] as const;
export type RuleTargetKind = (typeof ruleTargetKinds)[number];

export const cadences = ["hourly", "daily"] as const;
export type Cadence = (typeof cadences)[number];

export const directions = ["drop", "spike", "both"] as const;
export type Direction = (typeof directions)[number];

export interface RuleTarget {
  kind: RuleTargetKind;
  event?: string;
  from_event?: string;
  to_event?: string;
  key?: string;
}

/**
 * When a period's value raises a finding. The baseline is the median of the same period (the
 * same hour of the same weekday for hourly rules, the same weekday for daily ones) over the
 * previous `baseline_weeks` weeks. A finding is raised when the change goes the rule's
 * `direction` and crosses every threshold that is set (null: not checked); at least one is set.
 */
export interface Thresholds {
  direction: Direction;
  /** Change from the baseline in the target's unit (events, warnings, conversion points, metric units). */
  absolute_change: number | null;
  /** Change relative to the baseline: 0.3 is 30%. */
  relative_change: number | null;
  /** Robust z-score against the baseline: |value - median| / (1.4826 x MAD), with a floor for a flat baseline. */
  anomaly_z: number | null;
  /** Weeks of history the baseline takes. */
  baseline_weeks: number;
  /** A period whose value and baseline are both below this is not judged (too little to say anything). */
  min_volume: number;
}

export const defaultThresholds: Thresholds = {
  direction: "both",
  absolute_change: null,
  relative_change: 0.3,
  anomaly_z: null,
  baseline_weeks: 4,
  min_volume: 20,
};

/** A findings destination as the region keeps it: secrets included, since the region delivers. */
export interface RegionFindingsDestination {
  id: string;
  kind: DestinationKind;
  name: string;
  enabled: boolean;
  min_severity: Severity;
  config: { to: string[]; channel: string | null };
  /** Slack: the incoming-webhook URL; webhook: the endpoint URL. */
  secret: string | null;
  /** Webhook kind: the HMAC signing secret (Standard Webhooks). */
  signing_secret: string | null;
}

export interface RegionFindingsRule {
  id: string;
  name: string;
  cadence: Cadence;
  enabled: boolean;
  min_severity: Severity;
  destination_ids: string[];
  target: RuleTarget;
  thresholds: Thresholds;
  /** Findings sent per rule per day (UTC) at most; null: the deployment's default. */
  daily_cap: number | null;
}

/** The metric a `metric` rule names, as the control plane holds it (MetricDto's kind and query). */
export interface RegionFindingsMetric {
  key: string;
  name: string;
  kind: "proportion" | "mean";
  query: Record<string, unknown>;
  unit: string | null;
}

/** Everything the region needs to evaluate and deliver one project's findings. */
export interface RegionFindingsProject {
  projectId: string;
  orgId: string;
  dataId: number;
  /** The environment rules are evaluated in (the project's production environment). */
  environment: string;
  timeZone: string;
  /** The project's console page, for links in messages. */
  consoleUrl: string;
  destinations: RegionFindingsDestination[];
  rules: RegionFindingsRule[];
  /** The metrics `metric` rules name, by key. */
  metrics: RegionFindingsMetric[];
}

/** A finding the evaluator raised and stored. */
export interface RaisedFinding {
  id: string;
  projectId: string;
  ruleId: string;
  ruleName: string;
  target: RuleTarget;
  cadence: Cadence;
  severity: Severity;
  /** The period judged: [periodStart, periodEnd), ISO instants. */
  periodStart: string;
  periodEnd: string;
  value: number;
  baseline: number;
  /** value - baseline. */
  change: number;
  /** change / baseline; null when the baseline is 0. */
  relativeChange: number | null;
  /** The robust z-score; null when the rule does not use the anomaly threshold. */
  anomalyZ: number | null;
  /** One line a person reads: what moved, by how much, against what. */
  summary: string;
  raisedAt: string;
  /** False when the rule's daily cap was reached: stored and listed, not sent. */
  sent: boolean;
}

/** One delivery attempt of a finding (or a test message) to a destination. */
export interface DeliveryAttempt {
  destinationId: string;
  attempt: number;
  at: string;
  /** The receiver's HTTP status; null when no answer came (network error, time-out). */
  status: number | null;
  ok: boolean;
  error: string | null;
  durationMs: number;
}

export interface DeliveryState {
  destinationId: string;
  state: "pending" | "delivered" | "failed";
  attempts: DeliveryAttempt[];
  nextAttemptAt: string | null;
}

/** The result of a destination's "send test" action: one attempt, made now, never retried. */
export type TestDeliveryResult = DeliveryAttempt;

/** What the evaluator hands raised findings to, and the control plane's "send test" reaches. */
export interface FindingsDispatcher {
  /** Queues the finding for each destination (durably, in the same file as the finding). */
  enqueue(projectId: string, finding: RaisedFinding, destinationIds: string[]): void;
  /** The deliveries of a finding, each with its attempts. */
  deliveriesOf(findingId: string): DeliveryState[];
  /** Sends a test message to a destination now; RegionRefusal-style 404 when the region does not know it. */
  sendTest(projectId: string, destinationId: string): Promise<TestDeliveryResult>;
}
