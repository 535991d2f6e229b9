// The form of a findings rule, for creating and editing: name, what it watches, cadence, the
// thresholds (direction; relative change in percent, absolute change and anomaly z, each left
// empty when not checked; baseline weeks; minimum volume), the lowest severity raised, the
// daily cap (empty: the deployment's default), the destinations it sends to, and whether it is
// enabled. The API judges the rest and its refusals are shown above the form in its words.
import { useState } from "preact/hooks";
import type { MetricDto } from "../../api/experiments-api.ts";
import { cadences, directions, severities, type DestinationDto, type RuleDto, type RuleInput, type RuleTargetKind, type Thresholds } from "../../api/findings-api.ts";
import { fieldText } from "../../hooks/use-form-action.ts";
import { SelectField, TextField } from "../../ui/field.tsx";
import { cadenceLabels, severityLabels } from "./finding-format.ts";
import { readTarget, TargetFields } from "./rule-target-fields.tsx";

/** The console API's limit for names (server/control/schemas.ts, nameLengthMax). */
const ruleNameLengthMax = 200;

/** A new rule's thresholds: docs/findings.md's defaults (server/findings/findings-types.ts, defaultThresholds). */
const newThresholds: Thresholds = { direction: "both", absolute_change: null, relative_change: 0.3, anomaly_z: null, baseline_weeks: 4, min_volume: 20 };

const directionChoices: Record<Thresholds["direction"], string> = { drop: "A drop", spike: "A spike", both: "A drop or a spike" };

const numberText = (value: number | null) => (value === null ? "" : String(value));
/** 0.3 → "30": percent typed, a ratio sent; rounded so 0.07 does not read 7.000000000000001. */
const percentText = (ratio: number | null) => (ratio === null ? "" : String(Math.round(ratio * 100 * 1e6) / 1e6));

interface RuleFieldsProps {
  existing: RuleDto | null;
  events: readonly string[];
  metrics: readonly MetricDto[] | null;
  destinations: readonly DestinationDto[];
  kind: RuleTargetKind;
  onKind(kind: RuleTargetKind): void;
}

export function RuleFields({ existing, events, metrics, destinations, kind, onKind }: RuleFieldsProps) {
  const thresholds = existing?.thresholds ?? newThresholds;
  const chosen = new Set(existing?.destination_ids ?? []);
  return (
    <>
      <TextField label="Name" name="name" required maxLength={ruleNameLengthMax} defaultValue={existing?.name ?? ""} placeholder="Signups dropping" />
      <TargetFields kind={kind} target={existing?.target ?? null} events={events} metrics={metrics} onKind={onKind} />
      <fieldset class="rule-fieldset">
        <legend class="field-label">When it raises a finding</legend>
        <div class="field-row">
          <SelectField label="Cadence" name="cadence" hint="Hourly compares each hour with the same hour of the same weekday in the previous weeks; daily, each day with the same weekday.">
            {cadences.map((cadence) => <option key={cadence} value={cadence} selected={cadence === (existing?.cadence ?? "daily")}>{cadenceLabels[cadence]}</option>)}
          </SelectField>
          <SelectField label="Direction" name="direction">
            {directions.map((direction) => <option key={direction} value={direction} selected={direction === thresholds.direction}>{directionChoices[direction]}</option>)}
          </SelectField>
        </div>
        <div class="field-row">
          <TextField label="Relative change (%)" name="relative_change" type="number" step="any" defaultValue={percentText(thresholds.relative_change)} hint="Empty: not checked." />
          <TextField label="Absolute change" name="absolute_change" type="number" step="any" defaultValue={numberText(thresholds.absolute_change)} hint="In the target's unit: events, warnings, conversion points or the metric's unit. Empty: not checked." />
          <TextField label="Anomaly z" name="anomaly_z" type="number" step="any" defaultValue={numberText(thresholds.anomaly_z)} hint="Robust z-score against the baseline. Empty: not checked." />
        </div>
        <div class="field-row">
          <TextField label="Baseline weeks" name="baseline_weeks" type="number" step="any" required defaultValue={String(thresholds.baseline_weeks)} />
          <TextField label="Minimum volume" name="min_volume" type="number" step="any" required defaultValue={String(thresholds.min_volume)} hint="Periods below this, with their baseline, are not judged." />
        </div>
        <p class="findings-note">Every threshold that is set must be crossed; at least one is set.</p>
      </fieldset>
      <fieldset class="rule-fieldset">
        <legend class="field-label">Where it goes</legend>
        <div class="field-row">
          <SelectField label="Lowest severity raised" name="min_severity">
            {severities.map((severity) => <option key={severity} value={severity} selected={severity === (existing?.min_severity ?? "info")}>{severityLabels[severity]}</option>)}
          </SelectField>
          <TextField label="Daily cap" name="daily_cap" type="number" step="any" defaultValue={numberText(existing?.daily_cap ?? null)} placeholder="Default" hint="Findings sent per day at most. Empty: the deployment's default." />
        </div>
        <div class="field" role="group" aria-label="Destinations">
          <span class="field-label">Destinations</span>
          {destinations.length === 0 ? (
            <p class="findings-note">No destinations yet: findings are listed here but sent nowhere. Add one under Destinations.</p>
          ) : (
            <div class="rule-destinations">
              {destinations.map((destination) => (
                <label key={destination.id} class="check">
                  <input type="checkbox" name="destination_ids" value={destination.id} defaultChecked={chosen.has(destination.id)} />
                  {destination.name}
                </label>
              ))}
            </div>
          )}
        </div>
        <label class="switch-field">
          <input type="checkbox" name="enabled" defaultChecked={existing?.enabled ?? true} />
          <span>Enabled: evaluated on its cadence</span>
        </label>
      </fieldset>
    </>
  );
}

/** A number field's value, or null when it is empty. */
function optionalNumber(fields: FormData, name: string, label: string): number | null {
  const raw = fieldText(fields, name).trim();
  if (raw === "") return null;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`${label} must be a number`);
  return value;
}

function requiredNumber(fields: FormData, name: string, label: string): number {
  const value = optionalNumber(fields, name, label);
  if (value === null) throw new Error(`${label} is needed`);
  return value;
}

export function useTargetKind(existing: RuleDto | null) {
  return useState<RuleTargetKind>(existing?.target.kind ?? "event_volume");
}

/** The request a submitted form stands for. */
export function readRule(fields: FormData, kind: RuleTargetKind): RuleInput {
  const relative = optionalNumber(fields, "relative_change", "Relative change");
  return {
    name: fieldText(fields, "name").trim(),
    target: readTarget(fields, kind),
    cadence: fieldText(fields, "cadence") as RuleInput["cadence"],
    thresholds: {
      direction: fieldText(fields, "direction") as Thresholds["direction"],
      relative_change: relative === null ? null : relative / 100,
      absolute_change: optionalNumber(fields, "absolute_change", "Absolute change"),
      anomaly_z: optionalNumber(fields, "anomaly_z", "Anomaly z"),
      baseline_weeks: requiredNumber(fields, "baseline_weeks", "Baseline weeks"),
      min_volume: requiredNumber(fields, "min_volume", "Minimum volume"),
    },
    min_severity: fieldText(fields, "min_severity") as RuleInput["min_severity"],
    daily_cap: optionalNumber(fields, "daily_cap", "Daily cap"),
    destination_ids: fields.getAll("destination_ids").filter((value): value is string => typeof value === "string"),
    enabled: fields.get("enabled") === "on",
  };
}
