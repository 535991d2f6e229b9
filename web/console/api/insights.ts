// The console API routes the insights pages call (docs/insights.md, docs/annotations.md,
// docs/cohorts-control.md) and the region routes the builder runs (POST /query, the schema
// routes of docs/sql.md) with the environment's region token.
import { ApiError } from "./errors.ts";
import { requestJson } from "./http.ts";
import type { AnnotationDto, InsightDto, InsightListResponse, InsightViz } from "./insight-types.ts";
import type { EventSchema, PropertySchema, QueryAnswer, QueryIrDocument } from "./query-types.ts";
import { queryString, regionJson } from "./region-api.ts";
import type { RegionTokenSource } from "./region-token.ts";

const base = (projectId: string) => `/app/projects/${encodeURIComponent(projectId)}/insights`;
const one = (projectId: string, insightId: string) => `${base(projectId)}/${encodeURIComponent(insightId)}`;

export interface InsightListFilters {
  search?: string;
  favorited?: boolean;
  kind?: string;
  tag?: string;
  offset?: number;
}

/** Insights per page of the list. */
export const insightPageSize = 50;

export const listInsights = (projectId: string, filters: InsightListFilters) =>
  requestJson<InsightListResponse>(
    "GET",
    `${base(projectId)}${queryString({ search: filters.search, favorited: filters.favorited ? true : undefined, kind: filters.kind, tag: filters.tag, offset: filters.offset || undefined, limit: insightPageSize })}`,
  );
export const getInsight = (projectId: string, insightId: string) => requestJson<InsightDto>("GET", one(projectId, insightId));
export const createInsight = (projectId: string, input: { name: string; query: QueryIrDocument; viz: InsightViz; tags: string[]; created_via?: InsightDto["created_via"] }) =>
  requestJson<InsightDto>("POST", base(projectId), input);
export const updateInsight = (projectId: string, insightId: string, input: { name?: string; query?: QueryIrDocument; viz?: InsightViz; tags?: string[] }) =>
  requestJson<InsightDto>("PATCH", one(projectId, insightId), input);
export const deleteInsight = (projectId: string, insightId: string) => requestJson<void>("DELETE", one(projectId, insightId));
export const favoriteInsight = (projectId: string, insightId: string, favorite: boolean) => requestJson<InsightDto>("POST", `${one(projectId, insightId)}/favorite`, { favorite });

/** Annotations per chart: one page of the largest size the route allows. */
export const chartAnnotationsMax = 200;

export const listAnnotations = (projectId: string, window: { from: string; to: string }) =>
  requestJson<{ annotations: AnnotationDto[] }>("GET", `/app/projects/${encodeURIComponent(projectId)}/annotations${queryString({ ...window, limit: chartAnnotationsMax })}`);

export interface CohortSummary {
  id: string;
  name: string;
}

export const listCohorts = (projectId: string) => requestJson<{ cohorts: CohortSummary[] }>("GET", `/app/projects/${encodeURIComponent(projectId)}/cohorts`);

/** How often a region call refused for a busy project (429) is tried again, a second apart. */
export const busyRetriesMax = 3;
const busyRetryMs = 1_000;

/** The region call, tried again while the project runs its maximum of concurrent queries. */
async function regionCall<T>(tokens: RegionTokenSource, method: string, path: string, body?: unknown): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await regionJson<T>(tokens, method, path, body);
    } catch (error) {
      if (attempt >= busyRetriesMax || !(error instanceof ApiError && error.status === 429)) throw error;
      await new Promise((resolve) => setTimeout(resolve, busyRetryMs));
    }
  }
}

export const runQuery = (tokens: RegionTokenSource, query: QueryIrDocument, includeSql: boolean) => regionCall<QueryAnswer>(tokens, "POST", "/query", { query, include_sql: includeSql });
export const listEventNames = (tokens: RegionTokenSource) => regionCall<{ events: EventSchema[] }>(tokens, "GET", "/schema/events");
export const listPropertyKeys = (tokens: RegionTokenSource) => regionCall<{ properties: PropertySchema[] }>(tokens, "GET", "/schema/properties");
