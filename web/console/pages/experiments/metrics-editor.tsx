// What an experiment measures: one primary metric (needed to launch), secondary metrics, and
// guardrails with the harm each tolerates (a margin, relative to control or absolute). A metric
// appears once across all three. New metrics are defined here too (docs/experiments.md).
import { useState } from "preact/hooks";
import { createMetric, updateExperiment, type ExperimentDto, type MetricDto } from "../../api/experiments-api.ts";
import { describeError } from "../../api/errors.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { SelectField, TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { PlusIcon, TrashIcon } from "../../ui/icons.tsx";

interface GuardrailDraft {
  metricId: string;
  marginText: string;
  marginKind: "relative" | "absolute";
}

const guardrailDrafts = (experiment: ExperimentDto): GuardrailDraft[] =>
  experiment.guardrails.map((guardrail) => ({
    metricId: guardrail.metric_id,
    marginText: guardrail.margin_kind === "relative" ? String(Number((guardrail.margin * 100).toFixed(6))) : String(guardrail.margin),
    marginKind: guardrail.margin_kind,
  }));

/** A guardrail's margin as the API takes it: relative margins are typed in percent. */
export function guardrailMargin(draft: GuardrailDraft): number {
  const value = Number(draft.marginText);
  if (draft.marginText.trim() === "" || !Number.isFinite(value) || value < 0) throw new Error("a guardrail's margin is a number, 0 or more");
  return draft.marginKind === "relative" ? value / 100 : value;
}

function NewMetricDialog({ projectId, open, onClose, onCreated }: { projectId: string; open: boolean; onClose(): void; onCreated(metric: MetricDto): void }) {
  const [kind, setKind] = useState<"proportion" | "mean">("proportion");
  const form = useFormAction(async (fields) => {
    const event = fieldText(fields, "event").trim();
    const property = fieldText(fields, "property").trim();
    const metric = await createMetric(projectId, {
      key: fieldText(fields, "key").trim(),
      name: fieldText(fields, "name").trim(),
      query: kind === "proportion" ? { kind, event } : { kind, event, property: property === "" ? null : property },
      direction: fieldText(fields, "direction") === "decrease" ? "decrease" : "increase",
    });
    onCreated(metric);
    onClose();
  });
  return (
    <Dialog open={open} title="New metric" onClose={onClose}>
      <form class="form" onSubmit={form.onSubmit}>
        <FormError error={form.error} />
        <div class="field-row">
          <TextField label="Name" name="name" required maxLength={200} placeholder="Purchases" />
          <TextField label="Key" name="key" required maxLength={200} pattern="[A-Za-z0-9_.\-]+" placeholder="purchase" />
        </div>
        <SelectField label="Measures" name="kind" value={kind} onChange={(event) => setKind(event.currentTarget.value as "proportion" | "mean")}>
          <option value="proportion">The share of exposed persons who did an event</option>
          <option value="mean">Per exposed person, the sum of a property over an event (or its count)</option>
        </SelectField>
        <TextField label="Event" name="event" required maxLength={200} placeholder="purchase_completed" />
        {kind === "mean" && <TextField label="Numeric property (optional)" name="property" maxLength={400} placeholder="price" hint="Empty: the number of times the person did the event." />}
        <SelectField label="Better when it" name="direction">
          <option value="increase">goes up</option>
          <option value="decrease">goes down</option>
        </SelectField>
        <div class="dialog-footer">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" busy={form.busy}>Create metric</Button>
        </div>
      </form>
    </Dialog>
  );
}

interface MetricsEditorProps {
  projectId: string;
  experiment: ExperimentDto;
  metrics: MetricDto[];
  editable: boolean;
  onMetricCreated(metric: MetricDto): void;
  onSaved(experiment: ExperimentDto): void;
}

export function MetricsEditor({ projectId, experiment, metrics, editable, onMetricCreated, onSaved }: MetricsEditorProps) {
  const [primary, setPrimary] = useState(experiment.primary_metric?.metric_id ?? "");
  const [secondary, setSecondary] = useState(experiment.secondary_metrics.map((metric) => metric.metric_id));
  const [guardrails, setGuardrails] = useState(() => guardrailDrafts(experiment));
  const [creating, setCreating] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  // Metrics the experiment already uses stay listed even once archived.
  const used = [experiment.primary_metric, ...experiment.secondary_metrics, ...experiment.guardrails].filter((ref) => ref !== null);
  const choices = [
    ...metrics.filter((metric) => metric.archived_at === null),
    ...used.filter((ref) => !metrics.some((metric) => metric.id === ref!.metric_id && metric.archived_at === null)).map((ref) => ({ id: ref!.metric_id, name: `${ref!.name} (archived)`, key: ref!.key })),
  ];
  const label = (metric: { name: string; key: string }) => `${metric.name} (${metric.key})`;

  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      const updated = await updateExperiment(projectId, experiment.id, {
        primary_metric_id: primary === "" ? null : primary,
        secondary_metric_ids: secondary,
        guardrails: guardrails.map((draft) => ({ metric_id: draft.metricId, margin: guardrailMargin(draft), margin_kind: draft.marginKind })),
      });
      setSaved(true);
      onSaved(updated);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const setGuardrail = (at: number, change: Partial<GuardrailDraft>) => setGuardrails((list) => list.map((item, i) => (i === at ? { ...item, ...change } : item)));
  return (
    <>
    <form class="form" onSubmit={save}>
      {error !== null && <Alert tone="error">{describeError(error)}</Alert>}
      {saved && <Alert tone="success">Metrics saved.</Alert>}
      <fieldset class="env-fieldset" disabled={!editable}>
        <SelectField label="Primary metric" name="primary" value={primary} onChange={(event) => setPrimary(event.currentTarget.value)} hint="The one the decision rests on; launching needs it.">
          <option value="">None yet</option>
          {choices.map((metric) => <option key={metric.id} value={metric.id}>{label(metric)}</option>)}
        </SelectField>
        <fieldset class="field">
          <legend class="field-label">Secondary metrics</legend>
          {choices.length === 0 ? (
            <p class="field-hint">No metrics yet: define one below.</p>
          ) : (
            <div class="checkbox-list">
              {choices.map((metric) => (
                <label key={metric.id} class="checkbox">
                  <input
                    type="checkbox"
                    checked={secondary.includes(metric.id)}
                    onChange={(event) => setSecondary((list) => (event.currentTarget.checked ? [...list, metric.id] : list.filter((id) => id !== metric.id)))}
                  />
                  {label(metric)}
                </label>
              ))}
            </div>
          )}
        </fieldset>
        <fieldset class="field">
          <legend class="field-label">Guardrails</legend>
          <p class="field-hint">A guardrail is harmed when the whole interval is worse than control by more than its margin; shipping a harmed variant is blocked.</p>
          <ol class="guardrail-list">
            {guardrails.map((guardrail, g) => (
              <li key={g} class="guardrail" aria-label={`Guardrail ${g + 1}`}>
                <select class="input select" aria-label={`Guardrail ${g + 1} metric`} value={guardrail.metricId} onChange={(event) => setGuardrail(g, { metricId: event.currentTarget.value })}>
                  <option value="">Choose a metric…</option>
                  {choices.map((metric) => <option key={metric.id} value={metric.id}>{label(metric)}</option>)}
                </select>
                <input class="input input-number" aria-label={`Guardrail ${g + 1} margin`} inputMode="decimal" value={guardrail.marginText} onInput={(event) => setGuardrail(g, { marginText: event.currentTarget.value })} />
                <select class="input select" aria-label={`Guardrail ${g + 1} margin kind`} value={guardrail.marginKind} onChange={(event) => setGuardrail(g, { marginKind: event.currentTarget.value as GuardrailDraft["marginKind"] })}>
                  <option value="relative">% of control</option>
                  <option value="absolute">in the metric's unit</option>
                </select>
                <Button variant="ghost" small onClick={() => setGuardrails((list) => list.filter((_, i) => i !== g))} aria-label={`Remove guardrail ${g + 1}`}>
                  <TrashIcon />
                </Button>
              </li>
            ))}
          </ol>
          <div>
            <Button small onClick={() => setGuardrails((list) => [...list, { metricId: "", marginText: "5", marginKind: "relative" }])}>
              <PlusIcon />
              Add guardrail
            </Button>
          </div>
        </fieldset>
        <div class="form-actions">
          <Button type="submit" variant="primary" busy={busy}>Save metrics</Button>
          <Button onClick={() => setCreating(true)}>
            <PlusIcon />
            New metric
          </Button>
        </div>
      </fieldset>
    </form>
    <NewMetricDialog projectId={projectId} open={creating} onClose={() => setCreating(false)} onCreated={onMetricCreated} />
    </>
  );
}
