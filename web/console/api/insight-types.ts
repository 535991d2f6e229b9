// The console API's saved insights and annotations as the console reads them (spec 1:
// InsightDto, InsightListResponse, AnnotationDto; docs/insights.md, docs/annotations.md).
import type { InsightKind, QueryIrDocument } from "./query-types.ts";

export type Display = "line" | "area" | "bar" | "stacked_bar" | "number" | "table" | "pie" | "funnel_bars" | "retention_table" | "sankey";

/** Chart types that fit each kind, the first the default (server/control/insights/insight-schemas.ts). */
export const displaysByKind: Record<InsightKind, readonly Display[]> = {
  trends: ["line", "area", "bar", "stacked_bar", "number", "table", "pie"],
  funnel: ["funnel_bars", "table"],
  retention: ["retention_table", "line", "table"],
  paths: ["sankey", "table"],
  lifecycle: ["stacked_bar", "table"],
  stickiness: ["bar", "line", "table"],
  revenue: ["line", "area", "bar", "number", "table"],
};

export interface InsightViz {
  display: Display;
  show_legend: boolean;
  show_values: boolean;
  y_scale: "linear" | "log";
  stacked_percent: boolean;
}

export const defaultViz = (kind: InsightKind): InsightViz => ({ display: displaysByKind[kind][0]!, show_legend: true, show_values: false, y_scale: "linear", stacked_percent: false });

export interface InsightDto {
  id: string;
  project_id: string;
  name: string;
  created_via: "ui" | "api" | "ask" | "duplicate";
  favorited: boolean;
  query: QueryIrDocument;
  viz: InsightViz;
  tags: string[];
  created_at: string;
  updated_at: string;
  created_by: string | null;
  description: string | null;
}

export interface InsightListResponse {
  insights: InsightDto[];
  next_offset: number | null;
}

export interface AnnotationDto {
  id: string;
  project_id: string;
  content: string;
  kind: "note" | "release" | "incident" | "campaign" | "flag" | "experiment" | "project";
  occurred_at: string;
  source: "user" | "system";
  created_at: string;
  created_by: string | null;
  ref: Record<string, unknown> | null;
}
