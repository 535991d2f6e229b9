// Spec 1's DestinationDto, DestinationConfig, Destination{Create,Update}Request, RuleDto,
// RuleTarget, Rule{Create,Update}Request and their lists; Thresholds ("not shown" there) as
// docs/findings.md decides. Request schemas give each field's type; the bounds and the rules
// between fields are checked in destination-checks.ts and rule-checks.ts, whose messages name
// the limit (docs/findings.md, "Limits").
import { t } from "elysia";
import type { TLiteral } from "@sinclair/typebox";
import { nullable } from "../schemas.ts";
import { cadences, destinationKinds, directions, ruleTargetKinds, severities } from "../../findings/findings-types.ts";
import * as limits from "./findings-limits.ts";

const id = () => t.String({ format: "uuid" });
const dateTime = () => t.String({ format: "date-time" });
const literals = <T extends string>(values: readonly T[], description: string) => t.Union(values.map((value) => t.Literal(value)) as TLiteral<T>[], { description });

const Kind = literals(destinationKinds, "slack (secret: the incoming-webhook URL) or webhook (secret: the endpoint URL; signing_secret: the HMAC key)");
const Severity = literals(severities, "info < warning < critical: this level and the ones above it are kept");
const Cadence = literals(cadences, "hourly or daily (the project's time zone's days)");
const Name = t.String({ description: `1 to ${limits.findingsNameLengthMax} characters, not only white space` });

const Recipients = t.Array(t.String(), { description: `Recipients a message mentions: up to ${limits.recipientsMax}, each 1 to ${limits.recipientLengthMax} characters` });
const Channel = nullable(t.String({ description: `A channel, 1 to ${limits.channelLengthMax} characters` }));
export const DestinationConfig = t.Object({ to: Recipients, channel: Channel }, { title: "DestinationConfig" });
const DestinationConfigInput = t.Object(
  { to: t.Optional(Recipients), channel: t.Optional(Channel) },
  { additionalProperties: false, description: "Missing fields: to [], channel null. On update the whole config is replaced." },
);
const Secret = t.String({ description: `An http(s) URL of at most ${limits.destinationUrlLengthMax} characters (slack: the incoming-webhook URL; webhook: the endpoint URL). Never returned.` });
const SigningSecret = t.String({
  description: `webhook kind: whsec_<base64 of ${limits.whsecKeyBytesMin}-${limits.whsecKeyBytesMax} bytes> (Standard Webhooks) or ${limits.signingSecretLengthMin}-${limits.signingSecretLengthMax} visible ASCII characters (the key is their UTF-8 bytes). Never returned.`,
});

export const DestinationDto = t.Object(
  {
    id: id(),
    project_id: id(),
    kind: Kind,
    name: t.String(),
    enabled: t.Boolean(),
    min_severity: Severity,
    config: DestinationConfig,
    has_secret: t.Boolean({ description: "A URL is set (the secret is never returned)" }),
    created_at: dateTime(),
    updated_at: dateTime(),
    created_by: nullable(id()),
    secret_hint: nullable(t.String({ description: "The URL's origin and its last 4 characters (https://hooks.slack.com/…AbCd); null without a URL" })),
  },
  { title: "DestinationDto" },
);

export const DestinationCreateRequest = t.Object(
  {
    kind: Kind,
    name: Name,
    config: t.Optional(DestinationConfigInput),
    enabled: t.Optional(t.Boolean()),
    min_severity: t.Optional(Severity),
    secret: t.Optional(nullable(Secret)),
    signing_secret: t.Optional(nullable(SigningSecret)),
  },
  { title: "DestinationCreateRequest", additionalProperties: false },
);

export const DestinationUpdateRequest = t.Object(
  {
    config: t.Optional(DestinationConfigInput),
    enabled: t.Optional(t.Boolean()),
    min_severity: t.Optional(Severity),
    name: t.Optional(Name),
    secret: t.Optional(nullable(Secret)),
    signing_secret: t.Optional(nullable(SigningSecret)),
  },
  { title: "DestinationUpdateRequest", additionalProperties: false },
);

export const DestinationListResponse = t.Object({ destinations: t.Array(DestinationDto) }, { title: "DestinationListResponse" });

export const RuleTarget = t.Object(
  {
    kind: literals(ruleTargetKinds, "event_volume (event), funnel_conversion (from_event, to_event), metric (key: a metric of the project), ingestion_warnings (key: one warning reason, or none for all)"),
    event: t.Optional(t.String()),
    from_event: t.Optional(t.String()),
    key: t.Optional(t.String()),
    to_event: t.Optional(t.String()),
  },
  { title: "RuleTarget", additionalProperties: false },
);

const nullableNumber = (description: string) => nullable(t.Number({ description }));
const thresholdFields = {
  direction: literals(directions, "drop, spike or both"),
  absolute_change: nullableNumber("> 0, in the target's unit; null: not checked"),
  relative_change: nullableNumber(`> 0 and at most ${limits.relativeChangeMax} (0.3 is 30%); null: not checked`),
  anomaly_z: nullableNumber(`${limits.anomalyZMin} to ${limits.anomalyZMax}; null: not checked`),
  baseline_weeks: t.Integer({ description: `${limits.baselineWeeksMin} to ${limits.baselineWeeksMax}` }),
  min_volume: t.Number({ description: ">= 0: a period whose value and baseline are both below it is not judged" }),
};
export const Thresholds = t.Object(thresholdFields, { title: "Thresholds" });
const ThresholdsInput = t.Object(
  {
    direction: t.Optional(thresholdFields.direction),
    absolute_change: t.Optional(thresholdFields.absolute_change),
    relative_change: t.Optional(thresholdFields.relative_change),
    anomaly_z: t.Optional(thresholdFields.anomaly_z),
    baseline_weeks: t.Optional(thresholdFields.baseline_weeks),
    min_volume: t.Optional(thresholdFields.min_volume),
  },
  {
    additionalProperties: false,
    description: "The fields to set; the others keep their value (on create: the defaults). At least one of absolute_change, relative_change, anomaly_z stays set.",
  },
);

export const RuleDto = t.Object(
  {
    id: id(),
    project_id: id(),
    name: t.String(),
    cadence: Cadence,
    enabled: t.Boolean(),
    min_severity: Severity,
    destination_ids: t.Array(id()),
    target: RuleTarget,
    thresholds: Thresholds,
    created_at: dateTime(),
    updated_at: dateTime(),
    created_by: nullable(id()),
    daily_cap: nullable(t.Integer({ format: "int32", description: "Findings sent per day (UTC) at most; null: the deployment's default" })),
  },
  { title: "RuleDto" },
);

const ruleFields = {
  cadence: t.Optional(Cadence),
  daily_cap: t.Optional(nullable(t.Integer({ format: "int32", description: `${limits.dailyCapMin} to ${limits.dailyCapMax}; null: the deployment's default` }))),
  destination_ids: t.Optional(t.Array(t.String(), { description: `Up to ${limits.ruleDestinationsMax} destinations of the project` })),
  enabled: t.Optional(t.Boolean()),
  min_severity: t.Optional(Severity),
  thresholds: t.Optional(ThresholdsInput),
};

export const RuleCreateRequest = t.Object({ name: Name, target: RuleTarget, ...ruleFields }, { title: "RuleCreateRequest", additionalProperties: false });
export const RuleUpdateRequest = t.Object(
  { name: t.Optional(Name), target: t.Optional(RuleTarget), ...ruleFields },
  { title: "RuleUpdateRequest", additionalProperties: false },
);

export const RuleListResponse = t.Object({ rules: t.Array(RuleDto) }, { title: "RuleListResponse" });

export const DeliveryAttemptDto = t.Object(
  {
    destination_id: id(),
    attempt: t.Integer(),
    at: dateTime(),
    status: nullable(t.Integer({ description: "The receiver's HTTP status; null when no answer came" })),
    ok: t.Boolean(),
    error: nullable(t.String()),
    duration_ms: t.Number(),
  },
  { title: "DeliveryAttemptDto" },
);
export const TestDeliveryResponse = t.Object({ attempt: DeliveryAttemptDto }, { title: "TestDeliveryResponse" });

export type DestinationCreateInput = typeof DestinationCreateRequest.static;
export type DestinationUpdateInput = typeof DestinationUpdateRequest.static;
export type DestinationConfigInputValue = NonNullable<DestinationCreateInput["config"]>;
export type RuleCreateInput = typeof RuleCreateRequest.static;
export type RuleUpdateInput = typeof RuleUpdateRequest.static;
export type ThresholdsInputValue = NonNullable<RuleCreateInput["thresholds"]>;
