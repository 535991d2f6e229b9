// The builder's date range (presets, or any two date expressions the Query IR takes) and the
// interval of the kinds drawn over time.
import type { Interval, QueryIrDocument } from "../../api/query-types.ts";
import { ProblemAt, sectionPaths, type EngineProblem } from "./engine-problem.tsx";

export const datePresets = [
  { from: "-7d", label: "Last 7 days" },
  { from: "-14d", label: "Last 14 days" },
  { from: "-30d", label: "Last 30 days" },
  { from: "-90d", label: "Last 90 days" },
] as const;
const custom = "custom";
const intervals: readonly Interval[] = ["hour", "day", "week", "month"];
const intervalLabels: Record<Interval, string> = { hour: "Hour", day: "Day", week: "Week", month: "Month" };

interface RangeEditorProps {
  range: QueryIrDocument["date_range"];
  interval: Interval | undefined;
  /** Whether the kind takes an interval. */
  withInterval: boolean;
  problem: EngineProblem | null;
  onRange(range: QueryIrDocument["date_range"]): void;
  onInterval(interval: Interval): void;
}

export function RangeEditor({ range, interval, withInterval, problem, onRange, onInterval }: RangeEditorProps) {
  const preset = range.to === undefined ? datePresets.find((candidate) => candidate.from === range.from) : undefined;
  const choose = (value: string) => {
    if (value === custom) onRange({ from: range.from, to: range.to ?? "today" });
    else onRange({ from: value });
  };
  return (
    <section class="builder-section" aria-label="Date range">
      <h2 class="builder-section-title">Date range</h2>
      <ProblemAt problem={problem} at={sectionPaths.dates} />
      <div class="builder-filter-fields">
        <select class="input select" aria-label="Date range" value={preset?.from ?? custom} onChange={(event) => choose(event.currentTarget.value)}>
          {datePresets.map((candidate) => <option key={candidate.from} value={candidate.from}>{candidate.label}</option>)}
          <option value={custom}>Custom</option>
        </select>
        {withInterval && (
          <select class="input select" aria-label="Interval" value={interval ?? "day"} onChange={(event) => onInterval(event.currentTarget.value as Interval)}>
            {intervals.map((value) => <option key={value} value={value}>{`By ${intervalLabels[value].toLowerCase()}`}</option>)}
          </select>
        )}
      </div>
      {!preset && (
        <div class="builder-filter-fields">
          <input class="input" aria-label="From" placeholder="2026-01-31 or -30d" value={range.from} onInput={(event) => onRange({ ...range, from: event.currentTarget.value })} />
          <input class="input" aria-label="To" placeholder="today, now or 2026-02-28" value={range.to ?? ""} onInput={(event) => onRange(event.currentTarget.value ? { ...range, to: event.currentTarget.value } : { from: range.from })} />
        </div>
      )}
      {!preset && <p class="field-hint">Dates (YYYY-MM-DD), or today, yesterday, -7d, -4w, -3m. A day as "To" includes the whole day.</p>}
    </section>
  );
}
