// The builder's series: events and their math for trends, steps for funnels, the start and
// return events of retention, the one event of lifecycle and stickiness, and revenue's events
// with where their amount and currency are.
import type { EventSchema, InsightKind, MathValue, PropertySchema, SeriesSpec } from "../../api/query-types.ts";
import { mathLabel } from "../../charts/labels.ts";
import { Button } from "../../ui/button.tsx";
import { PlusIcon } from "../../ui/icons.tsx";
import { ProblemAt, problemWithin, type EngineProblem } from "./engine-problem.tsx";
import { EventPicker, PropertyInput } from "./pickers.tsx";
import { funnelStepsMin, removeAt, replaceAt, retentionSeriesMax } from "./query-edits.ts";

const mathValues: readonly MathValue[] = ["total", "unique_persons", "unique_sessions", "unique_groups", "sum", "avg", "min", "max", "p50", "p90", "p99"];
const propertyMaths: readonly MathValue[] = ["sum", "avg", "min", "max", "p50", "p90", "p99"];
/** Group types a project can have ($group_0 … $group_4). */
const groupTypeIndexes = [0, 1, 2, 3, 4];
export const seriesMax = 20;

interface SeriesEditorProps {
  kind: InsightKind;
  series: readonly SeriesSpec[];
  events: readonly EventSchema[];
  properties: readonly PropertySchema[];
  problem: EngineProblem | null;
  onChange(series: SeriesSpec[]): void;
}

const titles: Partial<Record<InsightKind, string>> = { trends: "Series", funnel: "Steps", retention: "Events", revenue: "Revenue events" };

function rowLabel(kind: InsightKind, index: number): string {
  if (kind === "funnel") return `Step ${index + 1}`;
  if (kind === "retention") return index === 0 ? "Start event" : "Return event";
  if (kind === "lifecycle" || kind === "stickiness") return "Event";
  return `Series ${index + 1}`;
}

function withMath(series: SeriesSpec, math: MathValue): SeriesSpec {
  const next: SeriesSpec = { event: series.event, math };
  if (series.filters) next.filters = series.filters;
  if (propertyMaths.includes(math) && series.property) next.property = series.property;
  if (math === "unique_groups") next.group_type_index = series.group_type_index ?? 0;
  return next;
}

const withOptional = (series: SeriesSpec, key: "property" | "currency_property", value: string): SeriesSpec => {
  const next = { ...series };
  if (value) next[key] = value;
  else delete next[key];
  return next;
};

function SeriesRow({ kind, index, series, events, properties, onChange }: { kind: InsightKind; index: number; series: SeriesSpec; events: readonly EventSchema[]; properties: readonly PropertySchema[]; onChange(series: SeriesSpec): void }) {
  const label = rowLabel(kind, index);
  const math = series.math ?? "total";
  return (
    <div class="builder-series-fields">
      <EventPicker label={`${label} event`} value={series.event} events={events} allowAll={kind !== "funnel"} onChange={(event) => onChange({ ...series, event })} />
      {kind === "trends" && (
        <select class="input select" aria-label={`${label} math`} value={math} onChange={(event) => onChange(withMath(series, event.currentTarget.value as MathValue))}>
          {mathValues.map((value) => <option key={value} value={value}>{mathLabel(value)}</option>)}
        </select>
      )}
      {kind === "trends" && propertyMaths.includes(math) && (
        <PropertyInput label={`${label} property`} value={series.property ?? ""} properties={properties} numeric placeholder="Numeric property" onChange={(key) => onChange(withOptional(series, "property", key))} />
      )}
      {kind === "trends" && math === "unique_groups" && (
        <select class="input select" aria-label={`${label} group type`} value={String(series.group_type_index ?? 0)} onChange={(event) => onChange({ ...series, group_type_index: Number(event.currentTarget.value) })}>
          {groupTypeIndexes.map((index) => <option key={index} value={String(index)}>{`Group type ${index}`}</option>)}
        </select>
      )}
      {kind === "revenue" && (
        <>
          <PropertyInput label={`${label} amount property`} value={series.property ?? ""} properties={properties} numeric placeholder="amount (minor units)" onChange={(key) => onChange(withOptional(series, "property", key))} />
          <PropertyInput label={`${label} currency property`} value={series.currency_property ?? ""} properties={properties} placeholder="currency" onChange={(key) => onChange(withOptional(series, "currency_property", key))} />
          <label class="check">
            <input type="checkbox" checked={series.refund === true} onChange={(event) => onChange({ ...series, refund: event.currentTarget.checked || undefined })} />
            Refunds (counted negative)
          </label>
        </>
      )}
    </div>
  );
}

function seriesLimit(kind: InsightKind): number {
  if (kind === "retention") return retentionSeriesMax;
  if (kind === "lifecycle" || kind === "stickiness") return 1;
  return seriesMax;
}

export function SeriesEditor({ kind, series, events, properties, problem, onChange }: SeriesEditorProps) {
  const removable = series.length > (kind === "funnel" ? funnelStepsMin : 1);
  const rowsClaim = series.map((_, index) => `/insight/series/${index}`);
  return (
    <section class="builder-section" aria-label={titles[kind] ?? "Event"}>
      <h2 class="builder-section-title">{titles[kind] ?? "Event"}</h2>
      {problem && problemWithin(problem, ["/insight/series"]) && !problemWithin(problem, rowsClaim) && <ProblemAt problem={problem} at={["/insight/series"]} />}
      <ol class="builder-series">
        {series.map((item, index) => (
          <li key={index} class="builder-series-item">
            <span class="builder-series-badge" aria-hidden="true">{kind === "retention" ? (index === 0 ? "S" : "R") : index + 1}</span>
            <SeriesRow kind={kind} index={index} series={item} events={events} properties={properties} onChange={(changed) => onChange(replaceAt(series, index, changed))} />
            {removable && (
              <Button variant="ghost" small aria-label={`Remove ${rowLabel(kind, index).toLowerCase()}`} onClick={() => onChange(removeAt(series, index))}>
                Remove
              </Button>
            )}
            <div class="builder-series-problem">
              <ProblemAt problem={problem} at={[`/insight/series/${index}`]} />
            </div>
          </li>
        ))}
      </ol>
      {series.length < seriesLimit(kind) && (
        <Button small onClick={() => onChange([...series, kind === "trends" ? { event: null, math: "total" } : { event: series.at(-1)?.event ?? null }])}>
          <PlusIcon />
          {kind === "funnel" ? "Add step" : kind === "retention" ? "Add a return event" : "Add series"}
        </Button>
      )}
    </section>
  );
}
