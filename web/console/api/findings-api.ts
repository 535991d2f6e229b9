// Findings (docs/findings.md): the control plane's destinations and rules through the console
// API (alerts:read, alerts:write), and the findings the region raised through its API
// (GET /findings, GET /findings/{id}, POST /findings/{id}/acknowledge) with the region token.
// The shapes are the server's own types (type imports only: nothing of the server ships to
// the browser).
import type { Cadence, DestinationKind, Direction, RuleTarget, RuleTargetKind, Severity, Thresholds } from "../../../server/findings/findings-types.ts";
import { requestJson } from "./http.ts";
import { queryString, regionJson } from "./region-api.ts";
import type { RegionTokenSource } from "./region-token.ts";

export type { Cadence, DestinationKind, Direction, RuleTarget, RuleTargetKind, Severity, Thresholds };

/** The same lists as server/findings/findings-types.ts, in the same order (lowest severity first). */
export const severities: readonly Severity[] = ["info", "warning", "critical"];
export const destinationKinds: readonly DestinationKind[] = ["slack", "webhook"];
export const ruleTargetKinds: readonly RuleTargetKind[] = ["event_volume", "funnel_conversion", "metric", "ingestion_warnings"];
export const cadences: readonly Cadence[] = ["hourly", "daily"];
export const directions: readonly Direction[] = ["drop", "spike", "both"];

export interface DestinationDto {
  id: string;
  project_id: string;
  kind: DestinationKind;
  name: string;
  enabled: boolean;
  min_severity: Severity;
  config: { to: string[]; channel: string | null };
  has_secret: boolean;
  created_at: string;
  updated_at: string;
  created_by: string | null;
  /** The secret's last characters, to tell it apart; the secret itself is never returned. */
  secret_hint: string | null;
}

export interface DestinationInput {
  kind?: DestinationKind;
  name?: string;
  enabled?: boolean;
  min_severity?: Severity;
  config?: { to: string[]; channel: string | null };
  /** Slack: the incoming-webhook URL; webhook: the endpoint URL. Left out: the stored one stays. */
  secret?: string;
  /** Webhook: the HMAC signing secret. Left out: the stored one stays. */
  signing_secret?: string;
}

export interface RuleDto {
  id: string;
  project_id: string;
  name: string;
  cadence: Cadence;
  enabled: boolean;
  min_severity: Severity;
  destination_ids: string[];
  target: RuleTarget;
  thresholds: Thresholds;
  created_at: string;
  updated_at: string;
  created_by: string | null;
  /** Findings sent per day at most; null: the deployment's default. */
  daily_cap: number | null;
}

export interface RuleInput {
  name: string;
  cadence: Cadence;
  enabled: boolean;
  min_severity: Severity;
  destination_ids: string[];
  target: RuleTarget;
  thresholds: Thresholds;
  daily_cap: number | null;
}

/** One delivery attempt of a finding or a test message. */
export interface AttemptDto {
  attempt: number;
  at: string;
  /** The receiver's HTTP status; null when none came (network error, time-out). */
  status: number | null;
  ok: boolean;
  error: string | null;
  duration_ms: number;
}

export interface DeliveryDto {
  destination_id: string;
  state: "pending" | "delivered" | "failed";
  attempts: AttemptDto[];
  next_attempt_at: string | null;
}

export interface FindingDto {
  id: string;
  project_id: string;
  rule_id: string;
  rule_name: string;
  target: RuleTarget;
  cadence: Cadence;
  severity: Severity;
  period_start: string;
  period_end: string;
  value: number;
  baseline: number;
  change: number;
  relative_change: number | null;
  anomaly_z: number | null;
  summary: string;
  raised_at: string;
  /** False when the rule's daily cap was reached: stored and listed, not sent. */
  sent: boolean;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  deliveries?: DeliveryDto[];
}

const project = (projectId: string) => `/app/projects/${encodeURIComponent(projectId)}/findings`;
const destination = (projectId: string, id: string) => `${project(projectId)}/destinations/${encodeURIComponent(id)}`;
const rule = (projectId: string, id: string) => `${project(projectId)}/rules/${encodeURIComponent(id)}`;

export const listDestinations = (projectId: string) => requestJson<{ destinations: DestinationDto[] }>("GET", `${project(projectId)}/destinations`);
export const createDestination = (projectId: string, input: DestinationInput) => requestJson<DestinationDto>("POST", `${project(projectId)}/destinations`, input);
export const updateDestination = (projectId: string, id: string, input: DestinationInput) => requestJson<DestinationDto>("PATCH", destination(projectId, id), input);
export const deleteDestination = (projectId: string, id: string) => requestJson<void>("DELETE", destination(projectId, id));
export const testDestination = (projectId: string, id: string) =>
  requestJson<{ attempt: AttemptDto & { destination_id: string } }>("POST", `${destination(projectId, id)}/test`).then(({ attempt }) => attempt);

export const listRules = (projectId: string) => requestJson<{ rules: RuleDto[] }>("GET", `${project(projectId)}/rules`);
export const createRule = (projectId: string, input: RuleInput) => requestJson<RuleDto>("POST", `${project(projectId)}/rules`, input);
export const updateRule = (projectId: string, id: string, input: Partial<RuleInput>) => requestJson<RuleDto>("PATCH", rule(projectId, id), input);
export const deleteRule = (projectId: string, id: string) => requestJson<void>("DELETE", rule(projectId, id));

/** Findings per page of the list. */
export const findingsPageSize = 50;

export interface FindingsFilter {
  ruleId?: string | null;
  /** false: only those not acknowledged yet. */
  acknowledged?: boolean | null;
  offset?: number;
}

export const listFindings = (tokens: RegionTokenSource, filter: FindingsFilter) =>
  regionJson<{ findings: FindingDto[]; next_offset: number | null }>(
    tokens,
    "GET",
    `/findings${queryString({ rule_id: filter.ruleId, acknowledged: filter.acknowledged, limit: findingsPageSize, offset: filter.offset || undefined })}`,
  );
export const getFinding = (tokens: RegionTokenSource, id: string) => regionJson<FindingDto>(tokens, "GET", `/findings/${encodeURIComponent(id)}`);
export const acknowledgeFinding = (tokens: RegionTokenSource, id: string) => regionJson<FindingDto>(tokens, "POST", `/findings/${encodeURIComponent(id)}/acknowledge`);
