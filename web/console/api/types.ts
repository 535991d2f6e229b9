// The shapes of the console API's answers that the console reads (spec 1, Resources).

export type Role = "viewer" | "member" | "admin" | "owner";

export interface UserDto {
  id: string;
  email: string;
  name: string;
  email_verified: boolean;
  created_at: string;
}

export interface OrgDto {
  id: string;
  name: string;
  slug: string;
  role: Role;
  created_at: string;
}

export interface MeResponse {
  user: UserDto;
  orgs: OrgDto[];
}

export interface EnvironmentDto {
  id: string;
  name: string;
  is_default: boolean;
}

export interface ProjectDto {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  region: string;
  currency: string;
  timezone: string;
  retention_days: number;
  data_id: number;
  role: Role;
  environments: EnvironmentDto[];
  created_at: string;
}

export interface KeyDto {
  id: string;
  project_id: string;
  environment: string;
  key: string;
  /** Web origins allowed to send with the key; empty allows any. */
  allowed_origins: string[];
  allowed_bundle_ids: string[];
  /** The region's capture service has the key's latest state. */
  registry_synced: boolean;
  created_at: string;
  revoked_at: string | null;
}

export interface CreateProjectResponse {
  project: ProjectDto;
  public_keys: KeyDto[];
}

export interface RegionDto {
  code: string;
  name: string;
  status: string;
  api_host: string;
  ingest_host: string;
}

export interface RegionTokenResponse {
  token: string;
  region_api_url: string;
  expires_at: string;
  region: string;
  environment: string;
  scopes: string[];
}

/** An event as the region's live events route shows it (docs/live-events.md, "Event"). Every value came from ingest: show it as text. */
export interface LiveEvent {
  uuid: string;
  event: string;
  timestamp: string;
  received_at: string;
  distinct_id: string;
  person_id: string | null;
  anon_id: string | null;
  session_id: string | null;
  window_id: string | null;
  lib: { name: string; version: string } | null;
  consent: string | null;
  groups: Record<string, string> | null;
  $set: Record<string, unknown> | null;
  $set_once: Record<string, unknown> | null;
  properties: Record<string, unknown>;
  location: { country: string | null; region: string | null; city: string | null; timezone: string | null } | null;
  is_suspect: boolean;
  sample_rate: number;
}
