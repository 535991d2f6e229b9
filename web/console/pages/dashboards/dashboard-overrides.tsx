// The dashboard's date range and property filters, which override its tiles' own while it is
// viewed (docs/dashboards.md): the range replaces every tile's range, the filters are added to
// every tile's. Both are saved on the dashboard; the API checks them as Query IR, so a refusal
// is shown here and the previous choice stays.
import { useId, useState } from "preact/hooks";
import type { DashboardChanges, DashboardDto, DateRange } from "../../api/dashboard-types.ts";
import type { FilterSpec } from "../../api/query-types.ts";
import { fieldText, useFormAction } from "../../hooks/use-form-action.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { Dialog } from "../../ui/dialog.tsx";
import { SelectField, TextField } from "../../ui/field.tsx";
import { FormError } from "../../ui/form-error.tsx";
import { describeError } from "../../api/errors.ts";
import { PlusIcon, XIcon } from "../../ui/icons.tsx";

/** The API's limit of dashboard filters. */
export const dashboardFiltersMax = 10;

const presets: { value: string; label: string; range: DateRange | null }[] = [
  { value: "", label: "Each tile's own range", range: null },
  { value: "-24h", label: "Last 24 hours", range: { from: "-24h" } },
  { value: "today", label: "Today", range: { from: "today" } },
  { value: "-7d", label: "Last 7 days", range: { from: "-7d" } },
  { value: "-14d", label: "Last 14 days", range: { from: "-14d" } },
  { value: "-30d", label: "Last 30 days", range: { from: "-30d" } },
  { value: "-90d", label: "Last 90 days", range: { from: "-90d" } },
  { value: "-12m", label: "Last 12 months", range: { from: "-12m" } },
];
const customValue = "custom";

/** The preset a stored range is, or "custom". */
function presetOf(range: DateRange | null): string {
  if (!range) return "";
  if (range.to) return customValue;
  return presets.find((preset) => preset.range?.from === range.from)?.value ?? customValue;
}

export const describeRange = (range: DateRange) => `${range.from} to ${range.to ?? "now"}`;

const operators: { value: string; label: string; takes: "one" | "list" | "number" | "none" }[] = [
  { value: "eq", label: "equals", takes: "one" },
  { value: "neq", label: "does not equal", takes: "one" },
  { value: "in", label: "is one of", takes: "list" },
  { value: "not_in", label: "is not one of", takes: "list" },
  { value: "contains", label: "contains", takes: "one" },
  { value: "not_contains", label: "does not contain", takes: "one" },
  { value: "regex", label: "matches the pattern", takes: "one" },
  { value: "not_regex", label: "does not match the pattern", takes: "one" },
  { value: "gt", label: "is greater than", takes: "number" },
  { value: "gte", label: "is at least", takes: "number" },
  { value: "lt", label: "is less than", takes: "number" },
  { value: "lte", label: "is at most", takes: "number" },
  { value: "is_set", label: "is set", takes: "none" },
  { value: "is_not_set", label: "is not set", takes: "none" },
];

const filterTypes = [
  { value: "event", label: "Event property" },
  { value: "person", label: "Person property" },
  { value: "column", label: "Event column" },
];

type PropertyFilter = Exclude<FilterSpec, { type: "cohort" }>;

/** A filter in words, e.g. `$browser equals Chrome`; every part is data, shown as text. */
export function describeFilter(filter: FilterSpec): string {
  if (filter.type === "cohort") return `${filter.operator === "not_in" ? "not in" : "in"} cohort ${filter.cohort_id ?? ""}`;
  const operator = operators.find(({ value }) => value === filter.operator)?.label ?? filter.operator;
  const subject = `${filter.type === "person" ? "person " : ""}${filter.key ?? ""}`;
  if (filter.value === undefined) return `${subject} ${operator}`;
  const value = Array.isArray(filter.value) ? filter.value.join(", ") : String(filter.value);
  return `${subject} ${operator} ${value}`;
}

function RangeDialog({ open, range, onClose, onApply }: { open: boolean; range: DateRange | null; onClose(): void; onApply(range: DateRange): Promise<void> }) {
  const formId = useId();
  const action = useFormAction(async (fields) => {
    const from = fieldText(fields, "from").trim();
    const to = fieldText(fields, "to").trim();
    await onApply(to ? { from, to } : { from });
  });
  return (
    <Dialog
      open={open}
      title="Custom date range"
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={action.busy}>Cancel</Button>
          <Button type="submit" form={formId} variant="primary" busy={action.busy}>Apply to every tile</Button>
        </>
      }
    >
      <form id={formId} class="form" onSubmit={action.onSubmit}>
        <FormError error={action.error} />
        <TextField label="From" name="from" required maxLength={64} defaultValue={range?.from ?? "-7d"} hint="A date (2026-01-31), a time, or relative: -7d, -12h, -3m, today, yesterday." autoFocus />
        <TextField label="To" name="to" maxLength={64} defaultValue={range?.to ?? ""} hint="Empty for now. A day named here counts to its end." />
      </form>
    </Dialog>
  );
}

function FilterDialog({ open, onClose, onApply }: { open: boolean; onClose(): void; onApply(filter: FilterSpec): Promise<void> }) {
  const formId = useId();
  const [operator, setOperator] = useState("eq");
  const takes = operators.find(({ value }) => value === operator)?.takes ?? "one";
  const action = useFormAction(async (fields) => {
    const text = fieldText(fields, "value");
    let value: PropertyFilter["value"];
    if (takes === "one") value = text;
    if (takes === "list") value = text.split(",").map((item) => item.trim()).filter(Boolean);
    if (takes === "number") {
      value = Number(text.trim());
      if (text.trim() === "" || !Number.isFinite(value)) throw new Error("the value must be a number");
    }
    // The API checks the key (a column must be one of the fixed columns) and the value as Query IR.
    const filter = { type: fieldText(fields, "type"), key: fieldText(fields, "key").trim(), operator, ...(value === undefined ? {} : { value }) } as PropertyFilter;
    await onApply(filter);
  });
  return (
    <Dialog
      open={open}
      title="Filter every tile"
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose} disabled={action.busy}>Cancel</Button>
          <Button type="submit" form={formId} variant="primary" busy={action.busy}>Add filter</Button>
        </>
      }
    >
      <form id={formId} class="form" onSubmit={action.onSubmit}>
        <FormError error={action.error} />
        <SelectField label="Filter on" name="type">
          {filterTypes.map(({ value, label }) => <option key={value} value={value}>{label}</option>)}
        </SelectField>
        <TextField label="Property or column" name="key" required maxLength={200} placeholder="$browser" autoFocus />
        <SelectField label="Condition" name="operator" value={operator} onChange={(event) => setOperator(event.currentTarget.value)}>
          {operators.map(({ value, label }) => <option key={value} value={value}>{label}</option>)}
        </SelectField>
        {takes !== "none" && (
          <TextField label="Value" name="value" required={takes !== "one"} inputMode={takes === "number" ? "decimal" : undefined} hint={takes === "list" ? "Separated by commas." : undefined} />
        )}
      </form>
    </Dialog>
  );
}

interface OverridesProps {
  dashboard: DashboardDto;
  editable: boolean;
  onChange(changes: DashboardChanges): Promise<void>;
}

export function DashboardOverrides({ dashboard, editable, onChange }: OverridesProps) {
  const [dialog, setDialog] = useState<"range" | "filter" | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const filters = dashboard.filters?.properties ?? [];
  const rangeChoice = presetOf(dashboard.date_range);

  const apply = async (changes: DashboardChanges) => {
    setBusy(true);
    setError(null);
    try {
      await onChange(changes);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  // In a dialog, a refusal stays in the dialog (it throws to the form).
  const applyFromDialog = async (changes: DashboardChanges) => {
    await onChange(changes);
    setDialog(null);
  };
  const chooseRange = (value: string) => {
    if (value === customValue) return setDialog("range");
    void apply({ date_range: presets.find((preset) => preset.value === value)?.range ?? null });
  };
  const removeFilter = (index: number) => {
    const rest = filters.filter((_, position) => position !== index);
    void apply({ filters: rest.length > 0 ? { properties: rest } : null });
  };

  return (
    <section class="dashboard-overrides" aria-label="Date range and filters for every tile" aria-busy={busy ? "true" : undefined}>
      <label class="overrides-range">
        <span class="overrides-label">Date range</span>
        <select class="input select" name="date_range" value={rangeChoice} disabled={!editable || busy} onChange={(event) => chooseRange(event.currentTarget.value)}>
          {presets.map(({ value, label }) => <option key={value} value={value}>{label}</option>)}
          <option value={customValue}>{rangeChoice === customValue && dashboard.date_range ? `Custom: ${describeRange(dashboard.date_range)}` : "Custom…"}</option>
        </select>
      </label>
      {rangeChoice === customValue && editable && (
        <Button small variant="ghost" onClick={() => setDialog("range")} disabled={busy}>Change range</Button>
      )}
      <div class="overrides-filters">
        <span class="overrides-label">Filters</span>
        {filters.length === 0 && <span class="overrides-none">None</span>}
        <ul class="filter-chips">
          {filters.map((filter, index) => (
            <li key={index} class="filter-chip">
              <span class="filter-chip-text">{describeFilter(filter)}</span>
              {editable && (
                <button type="button" class="filter-chip-remove" aria-label={`Remove filter ${describeFilter(filter)}`} disabled={busy} onClick={() => removeFilter(index)}>
                  <XIcon size={14} />
                </button>
              )}
            </li>
          ))}
        </ul>
        {editable && filters.length < dashboardFiltersMax && (
          <Button small variant="ghost" onClick={() => setDialog("filter")} disabled={busy}><PlusIcon /> Add filter</Button>
        )}
      </div>
      {error !== null && <Alert tone="error">{`The date range and filters were not changed: ${describeError(error)}`}</Alert>}
      <RangeDialog open={dialog === "range"} range={dashboard.date_range} onClose={() => setDialog(null)} onApply={(range) => applyFromDialog({ date_range: range })} />
      <FilterDialog open={dialog === "filter"} onClose={() => setDialog(null)} onApply={(filter) => applyFromDialog({ filters: { properties: [...filters, filter] } })} />
    </section>
  );
}
