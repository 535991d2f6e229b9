// Dashboards and tiles (spec 1: DashboardDto, DashboardSummaryDto, DashboardCreateRequest,
// DashboardUpdateRequest, DashboardListResponse, DashboardTileDto, TileCreateRequest,
// TileUpdateRequest, LayoutRequest). TileLayout and TilePosition, the date range and the filters
// are "not shown": ours are in docs/dashboards.md.
import { t } from "elysia";
import { Filter } from "../../../engine/ir/schema.ts";
import { Name, nullable, RegionRequestDto } from "../schemas.ts";
import { Tags } from "../tags.ts";
import { InsightDto } from "../insights/insight-schemas.ts";

export const gridColumns = 12;
/** Rows of the grid: a tile must end by this row. */
export const gridRowsMax = 1000;
export const tileHeightMax = 50;
export const tilesPerDashboardMax = 100;
export const dashboardsPerProjectMax = 1000;
export const dashboardDescriptionLengthMax = 2000;
export const textTileLengthMax = 4000;
export const dashboardFiltersMax = 10;

export const TileLayout = t.Object(
  {
    x: t.Integer({ minimum: 0, maximum: gridColumns - 1, description: "first column (0-based)" }),
    y: t.Integer({ minimum: 0, maximum: gridRowsMax - 1, description: "first row (0-based)" }),
    w: t.Integer({ minimum: 1, maximum: gridColumns, description: "columns wide; x + w is at most 12" }),
    h: t.Integer({ minimum: 1, maximum: tileHeightMax, description: "rows high" }),
  },
  { title: "TileLayout", additionalProperties: false },
);
export type Layout = typeof TileLayout.static;

export const TilePosition = t.Object(
  { id: t.String({ format: "uuid" }), x: TileLayout.properties.x, y: TileLayout.properties.y, w: TileLayout.properties.w, h: TileLayout.properties.h },
  { title: "TilePosition", additionalProperties: false },
);
export const LayoutRequest = t.Object(
  { tiles: t.Array(TilePosition, { minItems: 1, maxItems: tilesPerDashboardMax, description: "tiles to move; the others stay where they are" }) },
  { title: "LayoutRequest", additionalProperties: false },
);

export const DashboardDateRange = t.Object(
  {
    from: t.String({ minLength: 1, maxLength: 64, description: "a Query IR date expression" }),
    to: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 64 }), t.Null()])),
  },
  { title: "DashboardDateRange", additionalProperties: false, description: "replaces every tile's date range while the dashboard is viewed" },
);
export const DashboardFilters = t.Object(
  { properties: t.Array(Filter, { maxItems: dashboardFiltersMax, description: "Query IR filters added to every tile's global filters" }) },
  { title: "DashboardFilters", additionalProperties: false },
);

const Description = t.Union([t.String({ maxLength: dashboardDescriptionLengthMax }), t.Null()]);
const dashboardFields = {
  date_range: t.Optional(t.Union([DashboardDateRange, t.Null()])),
  description: t.Optional(Description),
  filters: t.Optional(t.Union([DashboardFilters, t.Null()])),
  is_home: t.Optional(t.Boolean({ description: "the project's home dashboard (one per project: setting it clears the previous one)" })),
  tags: t.Optional(Tags),
};
export const DashboardCreateRequest = t.Object({ name: Name, ...dashboardFields }, { title: "DashboardCreateRequest", additionalProperties: false });
export const DashboardUpdateRequest = t.Object({ name: t.Optional(Name), ...dashboardFields }, { title: "DashboardUpdateRequest", additionalProperties: false });
export type DashboardCreateInput = typeof DashboardCreateRequest.static;
export type DashboardUpdateInput = typeof DashboardUpdateRequest.static;

const TileKind = t.Union([t.Literal("insight"), t.Literal("text")]);
const TileBody = t.String({ minLength: 1, maxLength: textTileLengthMax, description: "text tiles: Markdown shown as text" });
export const TileCreateRequest = t.Object(
  { kind: TileKind, body: t.Optional(TileBody), insight_id: t.Optional(t.String({ format: "uuid" })), layout: t.Optional(TileLayout) },
  { title: "TileCreateRequest", additionalProperties: false },
);
export const TileUpdateRequest = t.Object(
  { body: t.Optional(TileBody), layout: t.Optional(TileLayout) },
  { title: "TileUpdateRequest", additionalProperties: false },
);
export type TileCreateInput = typeof TileCreateRequest.static;
export type TileUpdateInput = typeof TileUpdateRequest.static;

export const DashboardTileDto = t.Object(
  {
    id: t.String({ format: "uuid" }),
    kind: TileKind,
    layout: TileLayout,
    created_at: t.String({ format: "date-time" }),
    body: nullable(t.String()),
    insight: nullable(InsightDto),
    insight_id: nullable(t.String({ format: "uuid" })),
    request: nullable(RegionRequestDto),
    request_error: nullable(t.String({ description: "why the insight's query cannot run with the dashboard's date range and filters" })),
  },
  { title: "DashboardTileDto" },
);

const dashboardCommon = {
  id: t.String({ format: "uuid" }),
  name: t.String(),
  is_home: t.Boolean(),
  tags: t.Array(t.String()),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
  description: Description,
};
export const DashboardDto = t.Object(
  {
    ...dashboardCommon,
    project_id: t.String({ format: "uuid" }),
    tiles: t.Array(DashboardTileDto),
    created_by: nullable(t.String({ format: "uuid" })),
    date_range: nullable(DashboardDateRange),
    filters: nullable(DashboardFilters),
  },
  { title: "DashboardDto" },
);
export const DashboardSummaryDto = t.Object({ ...dashboardCommon, tile_count: t.Integer() }, { title: "DashboardSummaryDto" });
export const DashboardListResponse = t.Object(
  { dashboards: t.Array(DashboardSummaryDto), next_offset: t.Union([t.Integer(), t.Null()]) },
  { title: "DashboardListResponse" },
);
