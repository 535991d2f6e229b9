// An insight's viz: the stored object is always complete, so the console never guesses a
// default. A display that cannot draw the insight's kind is refused; when a new query changes
// the kind, a display that no longer fits falls back to the new kind's default.
import { validation } from "../../http/errors.ts";
import { displaysByKind, type InsightKind, type VizInputValue, type VizValue } from "./insight-schemas.ts";

const defaults = { show_legend: true, show_values: false, y_scale: "linear", stacked_percent: false } as const;

export function resolveViz(kind: InsightKind, input: VizInputValue | undefined, previous?: VizValue): VizValue {
  const fitting = displaysByKind[kind];
  if (input?.display !== undefined && !fitting.includes(input.display)) {
    throw validation(`body /viz/display: "${input.display}" cannot draw a ${kind} insight; use one of ${fitting.join(", ")}`);
  }
  const base: VizValue = previous ?? { display: fitting[0]!, ...defaults };
  const display = input?.display ?? (fitting.includes(base.display) ? base.display : fitting[0]!);
  return { ...base, ...input, display };
}
