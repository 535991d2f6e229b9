// The engine's refusal of a query (400 invalid_query, "/insight/series/0/property: is required
// for math sum") shown beside the part of the builder it names: each section claims the JSON
// paths it edits, and what no section claims is shown with the result.
import { ApiError, describeError } from "../../api/errors.ts";
import { Alert } from "../../ui/alert.tsx";

export interface EngineProblem {
  /** The JSON path (RFC 6901) at fault, "" when the message names none. */
  path: string;
  message: string;
}

export function engineProblem(error: unknown): EngineProblem | null {
  if (!(error instanceof ApiError) || error.status !== 400) return null;
  const match = /^(\/[^:\s]*): /.exec(error.message);
  return { path: match ? match[1]! : "", message: describeError(error) };
}

/** Whether `path` is `prefix` or lies inside it. */
const within = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The paths the builder's sections show problems for (the result shows the rest). */
export const sectionPaths = {
  series: ["/insight/series"],
  filters: ["/filters"],
  breakdown: ["/insight/breakdown"],
  dates: ["/date_range", "/insight/interval"],
  revenue: ["/insight/revenue_measure", "/insight/currency"],
  options: ["/insight/funnel_window", "/insight/funnel_order", "/insight/exclusions", "/insight/periods", "/insight/retention_type", "/insight/depth", "/insight/edges", "/insight/start_point", "/insight/end_point", "/insight/exclude_events", "/insight/cumulative"],
} as const;

export const problemWithin = (problem: EngineProblem | null, prefixes: readonly string[]) => problem !== null && prefixes.some((prefix) => within(problem.path, prefix));

export const problemClaimed = (problem: EngineProblem) => Object.values(sectionPaths).some((prefixes) => problemWithin(problem, prefixes));

/** The problem, when it lies within one of `at`. */
export function ProblemAt({ problem, at }: { problem: EngineProblem | null; at: readonly string[] }) {
  return problem && problemWithin(problem, at) ? <Alert tone="error">{problem.message}</Alert> : null;
}
