// What only one kind takes: a funnel's window, order and exclusions; retention's periods and
// type; paths' start, end and excluded events; stickiness counted cumulatively.
import type { EventSchema, InsightSpec } from "../../api/query-types.ts";
import { Button } from "../../ui/button.tsx";
import { PlusIcon } from "../../ui/icons.tsx";
import { ProblemAt, sectionPaths, type EngineProblem } from "./engine-problem.tsx";
import { EventPicker } from "./pickers.tsx";
import { removeAt, replaceAt } from "./query-edits.ts";

type Changes = Partial<InsightSpec>;
type WindowUnit = NonNullable<InsightSpec["funnel_window"]>["unit"];
const windowUnits: readonly WindowUnit[] = ["minute", "hour", "day", "week", "month"];
/** The engine's defaults, shown when the document leaves them out (docs/query-ir.md). */
const funnelWindowDefault = { value: 14, unit: "day" as WindowUnit };
const retentionPeriodsDefault = 7;

/** A whole number typed in a field, or undefined (the member is left out) when it is empty. */
const wholeNumber = (text: string) => (text.trim() === "" ? undefined : Number(text));

interface KindOptionsProps {
  insight: InsightSpec;
  events: readonly EventSchema[];
  problem: EngineProblem | null;
  onChange(changes: Changes): void;
}

function FunnelOptions({ insight, events, onChange }: KindOptionsProps) {
  const conversionWindow = insight.funnel_window ?? funnelWindowDefault;
  const steps = insight.series?.length ?? 0;
  const exclusions = insight.exclusions ?? [];
  return (
    <>
      <div class="builder-filter-fields">
        <label class="builder-inline-label" for="funnel-window">Converted within</label>
        <input id="funnel-window" class="input builder-number" type="number" min={1} value={conversionWindow.value} onInput={(event) => onChange({ funnel_window: { ...conversionWindow, value: Number(event.currentTarget.value) } })} />
        <select class="input select" aria-label="Window unit" value={conversionWindow.unit} onChange={(event) => onChange({ funnel_window: { ...conversionWindow, unit: event.currentTarget.value as WindowUnit } })}>
          {windowUnits.map((unit) => <option key={unit} value={unit}>{`${unit}s`}</option>)}
        </select>
      </div>
      <select class="input select" aria-label="Step order" value={insight.funnel_order ?? "ordered"} onChange={(event) => onChange({ funnel_order: event.currentTarget.value as InsightSpec["funnel_order"] })}>
        <option value="ordered">In order (other events may come between)</option>
        <option value="strict">Strict order (nothing between steps)</option>
        <option value="unordered">Any order</option>
      </select>
      {exclusions.length > 0 && (
        <ul class="builder-filters">
          {exclusions.map((exclusion, index) => (
            <li key={index} class="builder-filter">
              <div class="builder-filter-fields">
                <EventPicker label={`Exclusion ${index + 1} event`} value={exclusion.event} events={events} allowAll={false} onChange={(event) => onChange({ exclusions: replaceAt(exclusions, index, { ...exclusion, event: event ?? "" }) })} />
                <select class="input select" aria-label={`Exclusion ${index + 1} between steps`} value={`${exclusion.from_step}-${exclusion.to_step}`} onChange={(event) => {
                  const [from, to] = event.currentTarget.value.split("-").map(Number);
                  onChange({ exclusions: replaceAt(exclusions, index, { ...exclusion, from_step: from!, to_step: to! }) });
                }}>
                  {Array.from({ length: Math.max(steps - 1, 1) }, (_, from) => <option key={from} value={`${from}-${from + 1}`}>{`Between steps ${from + 1} and ${from + 2}`}</option>)}
                </select>
              </div>
              <Button variant="ghost" small aria-label={`Remove exclusion ${index + 1}`} onClick={() => onChange({ exclusions: exclusions.length > 1 ? removeAt(exclusions, index) : undefined })}>Remove</Button>
            </li>
          ))}
        </ul>
      )}
      <Button small onClick={() => onChange({ exclusions: [...exclusions, { event: events[0]?.name ?? "", from_step: 0, to_step: 1 }] })}>
        <PlusIcon />
        Add exclusion
      </Button>
    </>
  );
}

function RetentionOptions({ insight, onChange }: KindOptionsProps) {
  return (
    <div class="builder-filter-fields">
      <label class="builder-inline-label" for="retention-periods">Periods</label>
      <input id="retention-periods" class="input builder-number" type="number" min={1} value={insight.periods ?? retentionPeriodsDefault} onInput={(event) => onChange({ periods: wholeNumber(event.currentTarget.value) })} />
      <select class="input select" aria-label="Retention type" value={insight.retention_type ?? "recurring"} onChange={(event) => onChange({ retention_type: event.currentTarget.value as InsightSpec["retention_type"] })}>
        <option value="recurring">Recurring</option>
        <option value="first_time">First time</option>
      </select>
    </div>
  );
}

function PathsOptions({ insight, onChange }: KindOptionsProps) {
  const text = (value: string) => (value.trim() === "" ? undefined : value);
  return (
    <>
      <div class="builder-filter-fields">
        <input class="input" aria-label="Start point" placeholder="Start: page or event" value={insight.start_point ?? ""} onInput={(event) => onChange({ start_point: text(event.currentTarget.value) })} />
        <input class="input" aria-label="End point" placeholder="End: page or event" value={insight.end_point ?? ""} onInput={(event) => onChange({ end_point: text(event.currentTarget.value) })} />
      </div>
      <input
        class="input"
        aria-label="Excluded events"
        placeholder="Exclude events or pages, comma separated"
        value={(insight.exclude_events ?? []).join(", ")}
        onInput={(event) => {
          const names = event.currentTarget.value.split(",").map((name) => name.trim()).filter(Boolean);
          onChange({ exclude_events: names.length ? names : undefined });
        }}
      />
    </>
  );
}

function StickinessOptions({ insight, onChange }: KindOptionsProps) {
  return (
    <label class="check">
      <input type="checkbox" checked={insight.cumulative === true} onChange={(event) => onChange({ cumulative: event.currentTarget.checked || undefined })} />
      Cumulative ("N or more" intervals)
    </label>
  );
}

const optionEditors = { funnel: FunnelOptions, retention: RetentionOptions, paths: PathsOptions, stickiness: StickinessOptions } as const;
const titles = { funnel: "Conversion", retention: "Retention", paths: "Paths", stickiness: "Stickiness" } as const;

export function KindOptions(props: KindOptionsProps) {
  const kind = props.insight.kind;
  if (!(kind in optionEditors)) return null;
  const Editor = optionEditors[kind as keyof typeof optionEditors];
  return (
    <section class="builder-section" aria-label={titles[kind as keyof typeof titles]}>
      <h2 class="builder-section-title">{titles[kind as keyof typeof titles]}</h2>
      <ProblemAt problem={props.problem} at={sectionPaths.options} />
      <Editor {...props} />
    </section>
  );
}
