// A metric evaluated like an insight: its definition as a Query IR trends document over a date
// range, handed back with a query:read region token and the exact region request, as
// POST /v1/projects/{id}/query does. A proportion is the daily count of persons who did the
// event; a mean is two series, the sum of the property (or the event count) and those persons,
// whose ratio per interval is the metric (docs/experiments.md, "Metrics as insights").
import { t } from "elysia";
import { intervals } from "../../../engine/ir/schema.ts";
import type { ControlContext } from "../context.ts";
import { requireScope, type ProjectAccess } from "../access.ts";
import { prepareRegionQuery } from "../services/region-queries.ts";
import { metricOfProject, type MetricRow } from "./metrics.ts";

export const MetricQueryRequest = t.Object(
  {
    date_range: t.Optional(t.Object({ from: t.String({ minLength: 1, maxLength: 64 }), to: t.Optional(t.String({ minLength: 1, maxLength: 64 })) }, { additionalProperties: false })),
    interval: t.Optional(t.Union(intervals.map((interval) => t.Literal(interval)))),
    environment: t.Optional(t.Union([t.String({ minLength: 1 }), t.Null()])),
  },
  { title: "MetricQueryRequest", additionalProperties: false },
);
export type MetricQueryInput = typeof MetricQueryRequest.static;

const defaultRange = { from: "-30d" };

export function metricInsightQuery(metric: MetricRow, input: MetricQueryInput): Record<string, unknown> {
  const event = metric.query.event as string;
  const persons = { event, math: "unique_persons" };
  const property = metric.kind === "mean" ? (metric.query.property as string | null | undefined) : undefined;
  const series = metric.kind === "proportion" ? [persons] : [property ? { event, math: "sum", property } : { event, math: "total" }, persons];
  return { ir_version: 1, date_range: input.date_range ?? defaultRange, insight: { kind: "trends", interval: input.interval ?? "day", series } };
}

export async function prepareMetricQuery(ctx: ControlContext, access: ProjectAccess, metricId: string, input: MetricQueryInput) {
  requireScope(access, "insights:read");
  const metric = metricOfProject(ctx, access.project.id, metricId);
  return prepareRegionQuery(ctx, access, { query: metricInsightQuery(metric, input), environment: input.environment });
}
