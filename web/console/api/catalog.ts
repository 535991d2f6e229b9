// The tracking plan's console routes (docs/catalog.md): events with their properties and
// statuses, editing them, merging what the region has seen (sync), and the generated code.
import { errorFromResponse } from "./errors.ts";
import { requestJson } from "./http.ts";

export const catalogStatuses = ["planned", "implemented", "verified", "unplanned", "deprecated"] as const;
export type CatalogStatus = (typeof catalogStatuses)[number];

export const propertyTypes = ["string", "number", "boolean", "datetime", "object", "array", "any"] as const;
export type PropertyType = (typeof propertyTypes)[number];

export interface CatalogPropertyDto {
  id: string;
  name: string;
  type: PropertyType;
  pii: boolean;
  required: boolean;
  scope: "event";
  description: string | null;
  enum_values: string[] | null;
  event_id: string | null;
  example: string | null;
}

export interface CatalogEventDto {
  id: string;
  project_id: string;
  name: string;
  kind: string;
  status: CatalogStatus;
  pii_level: "none" | "low" | "high";
  platforms: string[];
  tags: string[];
  properties: CatalogPropertyDto[];
  version: number;
  volume_30d: number | null;
  created_at: string;
  updated_at: string;
  description: string | null;
  display_name: string | null;
  first_seen_at: string | null;
  last_seen_at: string | null;
  owner_id: string | null;
  question: string | null;
}

export interface CatalogPropertyInput {
  name: string;
  type: PropertyType;
  description?: string | null;
  enum_values?: string[] | null;
  example?: string | null;
  pii?: boolean;
  required?: boolean;
}

export interface CatalogEventUpdate {
  description?: string | null;
  status?: CatalogStatus;
  tags?: string[];
  /** Replaces the whole list, in this order. */
  properties?: CatalogPropertyInput[];
}

export interface CatalogEventList {
  events: CatalogEventDto[];
  counts: Record<CatalogStatus, number>;
}

export interface CatalogSyncResponse {
  discovered: number;
  environment: string;
  implemented: string[];
  unplanned: string[];
  updated: number;
  synced_at: string;
}

export type CodegenFormat = "typescript" | "json";

const base = (projectId: string) => `/app/projects/${encodeURIComponent(projectId)}/catalog`;

export function listCatalogEvents(projectId: string, filter: { status?: CatalogStatus | null; search?: string | null }): Promise<CatalogEventList> {
  const query = new URLSearchParams();
  if (filter.status) query.set("status", filter.status);
  if (filter.search) query.set("search", filter.search);
  const text = query.toString();
  return requestJson("GET", `${base(projectId)}/events${text ? `?${text}` : ""}`);
}

export const getCatalogEvent = (projectId: string, eventId: string) => requestJson<CatalogEventDto>("GET", `${base(projectId)}/events/${encodeURIComponent(eventId)}`);
export const updateCatalogEvent = (projectId: string, eventId: string, update: CatalogEventUpdate) =>
  requestJson<CatalogEventDto>("PATCH", `${base(projectId)}/events/${encodeURIComponent(eventId)}`, update);
export const createCatalogEvent = (projectId: string, input: { name: string; description?: string | null }) => requestJson<CatalogEventDto>("POST", `${base(projectId)}/events`, input);
export const syncCatalog = (projectId: string, environment: string) => requestJson<CatalogSyncResponse>("POST", `${base(projectId)}/sync`, { environment });

/** The JSON export has no file name of its own; the TypeScript one names itself (Content-Disposition). */
const codegenFallbackNames: Record<CodegenFormat, string> = { typescript: "tracking-plan.d.ts", json: "tracking-plan.json" };

/** The generated code as a file: its body and the name the route gives it. */
export async function fetchCodegen(projectId: string, format: CodegenFormat): Promise<{ body: Blob; fileName: string }> {
  const response = await fetch(`${base(projectId)}/codegen?format=${format}`, { credentials: "same-origin" });
  if (!response.ok) throw await errorFromResponse(response);
  const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") ?? "");
  return { body: await response.blob(), fileName: named?.[1] ?? codegenFallbackNames[format] };
}
