// Saved insights (spec 1: InsightDto, InsightCreateRequest, InsightUpdateRequest,
// InsightFavoriteRequest, InsightListResponse). `query` is a Query IR v1 document checked by the
// engine's own validator; `viz` says how the console draws the answer (docs/insights.md).
import { t } from "elysia";
import { insightKinds } from "../../../engine/ir/schema.ts";
import { Name, QueryIrDocument } from "../schemas.ts";
import { Tags } from "../tags.ts";

export const insightDescriptionLengthMax = 2000;
export const insightsPerProjectMax = 5000;

export const createdViaValues = ["ui", "api", "ask", "duplicate"] as const;

/** Chart types, and the ones that fit each insight kind (the first is the default). */
export const displays = ["line", "area", "bar", "stacked_bar", "number", "table", "pie", "funnel_bars", "retention_table", "sankey"] as const;
export type Display = (typeof displays)[number];
export type InsightKind = (typeof insightKinds)[number];
export const displaysByKind: Record<InsightKind, readonly Display[]> = {
  trends: ["line", "area", "bar", "stacked_bar", "number", "table", "pie"],
  funnel: ["funnel_bars", "table"],
  retention: ["retention_table", "line", "table"],
  paths: ["sankey", "table"],
  lifecycle: ["stacked_bar", "table"],
  stickiness: ["bar", "line", "table"],
  revenue: ["line", "area", "bar", "number", "table"],
};

const literal = <T extends string>(values: readonly T[]) => t.Union(values.map((value) => t.Literal(value)));

export const VizInput = t.Object(
  {
    display: t.Optional(literal(displays)),
    show_legend: t.Optional(t.Boolean()),
    show_values: t.Optional(t.Boolean()),
    y_scale: t.Optional(t.Union([t.Literal("linear"), t.Literal("log")])),
    stacked_percent: t.Optional(t.Boolean({ description: "stacked charts: each bar as shares of 100%" })),
  },
  { additionalProperties: false, title: "InsightViz", description: "How the console draws the insight; missing members take their defaults" },
);
export type VizInputValue = typeof VizInput.static;
export const Viz = t.Object(
  {
    display: literal(displays),
    show_legend: t.Boolean(),
    show_values: t.Boolean(),
    y_scale: t.Union([t.Literal("linear"), t.Literal("log")]),
    stacked_percent: t.Boolean(),
  },
  { title: "InsightVizDto" },
);
export type VizValue = typeof Viz.static;

const Description = t.Union([t.String({ maxLength: insightDescriptionLengthMax }), t.Null()]);

export const InsightCreateRequest = t.Object(
  {
    name: Name,
    query: QueryIrDocument,
    created_via: t.Optional(literal(createdViaValues)),
    description: t.Optional(Description),
    favorited: t.Optional(t.Boolean()),
    tags: t.Optional(Tags),
    viz: t.Optional(VizInput),
  },
  { title: "InsightCreateRequest", additionalProperties: false },
);
export type InsightCreateInput = typeof InsightCreateRequest.static;

export const InsightUpdateRequest = t.Object(
  {
    description: t.Optional(Description),
    favorited: t.Optional(t.Boolean()),
    name: t.Optional(Name),
    query: t.Optional(QueryIrDocument),
    tags: t.Optional(Tags),
    viz: t.Optional(VizInput),
  },
  { title: "InsightUpdateRequest", additionalProperties: false },
);
export type InsightUpdateInput = typeof InsightUpdateRequest.static;

export const InsightFavoriteRequest = t.Object({ favorite: t.Boolean() }, { title: "InsightFavoriteRequest", additionalProperties: false });

const nullableUuid = t.Union([t.String({ format: "uuid" }), t.Null()]);
export const InsightDto = t.Object(
  {
    id: t.String({ format: "uuid" }),
    project_id: t.String({ format: "uuid" }),
    name: t.String(),
    created_via: literal(createdViaValues),
    favorited: t.Boolean({ description: "whether the caller has favourited it" }),
    query: QueryIrDocument,
    viz: Viz,
    tags: t.Array(t.String()),
    created_at: t.String({ format: "date-time" }),
    updated_at: t.String({ format: "date-time" }),
    created_by: nullableUuid,
    description: Description,
  },
  { title: "InsightDto" },
);
export type InsightDtoValue = typeof InsightDto.static;

export const InsightListResponse = t.Object(
  { insights: t.Array(InsightDto), next_offset: t.Union([t.Integer(), t.Null()], { description: "offset of the next page; null on the last" }) },
  { title: "InsightListResponse" },
);
