// The shapes of dashboards and their tiles as the console API answers them (spec 1:
// DashboardDto, DashboardSummaryDto, DashboardTileDto; docs/dashboards.md). Saved insights and
// the region's query answers are typed in insight-types.ts and query-types.ts.
import type { InsightDto } from "./insight-types.ts";
import type { FilterSpec, QueryIrDocument } from "./query-types.ts";

/** A Query IR date range: date expressions evaluated in the project's time zone; `to` absent or null is now. */
export interface DateRange {
  from: string;
  to?: string | null;
}

/** A tile's place on the dashboard's grid of 12 columns: first column and row (0-based), columns wide, rows high. */
export interface TileLayout {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The region request that computes an insight tile, with the dashboard's overrides applied. */
export interface RegionRequest {
  method: string;
  url: string;
  body: { query: QueryIrDocument; include_sql: boolean; refresh: boolean };
}

export interface DashboardTileDto {
  id: string;
  kind: "insight" | "text";
  layout: TileLayout;
  created_at: string;
  body: string | null;
  insight: InsightDto | null;
  insight_id: string | null;
  request: RegionRequest | null;
  /** Why the insight's query cannot run with the dashboard's date range and filters. */
  request_error: string | null;
}

export interface DashboardFilters {
  properties: FilterSpec[];
}

export interface DashboardDto {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  is_home: boolean;
  tags: string[];
  tiles: DashboardTileDto[];
  date_range: DateRange | null;
  filters: DashboardFilters | null;
  created_at: string;
  updated_at: string;
  created_by: string | null;
}

export interface DashboardSummaryDto {
  id: string;
  name: string;
  description: string | null;
  is_home: boolean;
  tags: string[];
  tile_count: number;
  created_at: string;
  updated_at: string;
}

export interface DashboardListResponse {
  dashboards: DashboardSummaryDto[];
  next_offset: number | null;
}

export interface DashboardChanges {
  name?: string;
  description?: string | null;
  tags?: string[];
  is_home?: boolean;
  date_range?: DateRange | null;
  filters?: DashboardFilters | null;
}
