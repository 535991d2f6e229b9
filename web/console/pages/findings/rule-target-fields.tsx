// What a rule watches, with the fields each kind needs: an event (volume), two events (the
// conversion from one to the other), a metric of the project (by key), or ingestion warnings
// (every reason or one). Event names are suggested from the events the production environment
// stores, as text; a name not seen yet can still be typed.
import { useId } from "preact/hooks";
import type { MetricDto } from "../../api/experiments-api.ts";
import { ruleTargetKinds, type RuleTarget, type RuleTargetKind } from "../../api/findings-api.ts";
import { warningReasons } from "../../api/ingestion-warnings.ts";
import { fieldText } from "../../hooks/use-form-action.ts";
import { SelectField, TextField } from "../../ui/field.tsx";
import { reasonInfo } from "../ingestion-warnings/warning-reasons.ts";
import { targetKindLabels } from "./finding-format.ts";

/** The longest event name a query names (engine/ir/schema.ts, keyLengthMax). */
const eventNameLengthMax = 400;

function EventField({ label, name, value, listId }: { label: string; name: string; value: string; listId: string }) {
  return <TextField label={label} name={name} required maxLength={eventNameLengthMax} defaultValue={value} list={listId} autoComplete="off" placeholder="An event name" />;
}

interface TargetFieldsProps {
  kind: RuleTargetKind;
  target: RuleTarget | null;
  events: readonly string[];
  /** The project's metrics, or null when they could not be read (the key is then typed). */
  metrics: readonly MetricDto[] | null;
  onKind(kind: RuleTargetKind): void;
}

export function TargetFields({ kind, target, events, metrics, onKind }: TargetFieldsProps) {
  const listId = useId();
  const same = target?.kind === kind ? target : null;
  const liveMetrics = metrics?.filter((metric) => metric.archived_at === null || metric.key === same?.key) ?? null;
  return (
    <fieldset class="rule-fieldset">
      <legend class="field-label">What it watches</legend>
      <SelectField label="Watches" name="target_kind" onChange={(change) => onKind(change.currentTarget.value as RuleTargetKind)}>
        {ruleTargetKinds.map((name) => <option key={name} value={name} selected={name === kind}>{targetKindLabels[name]}</option>)}
      </SelectField>
      <datalist id={listId}>
        {events.map((name) => <option key={name} value={name} />)}
      </datalist>
      {kind === "event_volume" && <EventField label="Event" name="event" value={same?.event ?? ""} listId={listId} />}
      {kind === "funnel_conversion" && (
        <div class="field-row">
          <EventField label="From event" name="from_event" value={same?.from_event ?? ""} listId={listId} />
          <EventField label="To event" name="to_event" value={same?.to_event ?? ""} listId={listId} />
        </div>
      )}
      {kind === "metric" &&
        (liveMetrics === null ? (
          <TextField label="Metric key" name="key" required defaultValue={same?.key ?? ""} hint="The project's metrics could not be listed: type the metric's key." />
        ) : liveMetrics.length === 0 ? (
          <p class="findings-note">The project has no metrics yet: define one on an experiment's page first.</p>
        ) : (
          <SelectField label="Metric" name="key" required>
            {liveMetrics.map((metric) => <option key={metric.key} value={metric.key} selected={metric.key === same?.key}>{`${metric.name} (${metric.key})`}</option>)}
          </SelectField>
        ))}
      {kind === "ingestion_warnings" && (
        <SelectField label="Warning reason" name="key">
          <option value="" selected={!same?.key}>Every reason</option>
          {warningReasons.map((reason) => <option key={reason} value={reason} selected={reason === same?.key}>{reasonInfo[reason].label}</option>)}
        </SelectField>
      )}
    </fieldset>
  );
}

const text = (fields: FormData, name: string) => fieldText(fields, name).trim();

/** The target a submitted form names; empty fields are left for the API to refuse in its words. */
export function readTarget(fields: FormData, kind: RuleTargetKind): RuleTarget {
  switch (kind) {
    case "event_volume":
      return { kind, event: text(fields, "event") };
    case "funnel_conversion":
      return { kind, from_event: text(fields, "from_event"), to_event: text(fields, "to_event") };
    case "metric":
      return { kind, key: text(fields, "key") };
    case "ingestion_warnings": {
      const reason = text(fields, "key");
      return reason === "" ? { kind } : { kind, key: reason };
    }
  }
}
