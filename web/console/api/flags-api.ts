// Feature flags through the console API (docs/flags.md: /app/projects/{id}/flags, their
// environments and publications) and a flag's answer for one distinct id from the region's
// ingest surface (docs/flag-evaluation.md: our own POST {ingest_url}/flags with the
// environment's public key), which is what SDKs get.
import { ApiError } from "./errors.ts";
import { requestJson } from "./http.ts";

export type FlagKind = "boolean" | "multivariate";

export type ConditionOperator =
  | "eq" | "neq" | "contains" | "not_contains" | "regex" | "not_regex" | "gt" | "gte" | "lt" | "lte" | "in" | "not_in" | "is_set" | "is_not_set";

export type ConditionScalar = string | number | boolean;

/** A person or group property condition, or a cohort condition (docs/flags.md, "conditions"). */
export interface FlagCondition {
  type: "person" | "group" | "cohort";
  key?: string;
  operator?: ConditionOperator;
  value?: ConditionScalar | ConditionScalar[];
  group_type?: string;
  cohort_id?: string;
}

export interface FlagRule {
  properties: FlagCondition[];
  rollout_percentage: number | null;
  variant: string | null;
}

export interface FlagVariant {
  key: string;
  name: string | null;
  rollout_percentage: number;
  payload: unknown;
}

export interface FlagEnvironmentConfig {
  environment: string;
  enabled: boolean;
  payload: unknown;
  rules: FlagRule[];
  salt: string;
  stickiness: string;
  variants: FlagVariant[];
  version: number;
  updated_at: string;
  updated_by: string | null;
}

export interface FlagDto {
  id: string;
  project_id: string;
  key: string;
  name: string;
  kind: FlagKind;
  tags: string[];
  environments: Record<string, FlagEnvironmentConfig>;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
  created_by: string | null;
  description: string | null;
  experiment_id: string | null;
  owner_id: string | null;
}

export interface FlagPublication {
  id: string;
  environment: string;
  status: "pending" | "published" | "failed";
  version: number;
  checksum: string;
  created_at: string;
  error: string | null;
  published_at: string | null;
}

export interface FlagCreateInput {
  key: string;
  name: string;
  description?: string | null;
  kind: FlagKind;
  tags?: string[];
  variants?: { key: string; rollout_percentage: number }[];
}

export interface FlagEnvironmentChange {
  enabled?: boolean;
  payload?: unknown;
  rules?: FlagRule[];
  salt?: string;
  stickiness?: string;
  variants?: FlagVariant[];
}

/** A cohort as the flag editor offers it (the fields of CohortDto it reads). */
export interface CohortOption {
  id: string;
  name: string;
  kind: "dynamic" | "static";
}

/** A flag's answer for one subject, as our own POST /flags gives it. */
export interface FlagEvaluation {
  enabled: boolean;
  variant: string | null;
  payload: unknown;
  reason: { code: string; condition_index: number | null; description: string };
}

const id = encodeURIComponent;
const flagsPath = (projectId: string) => `/app/projects/${id(projectId)}/flags`;

export const listFlags = (projectId: string, includeArchived = false) =>
  requestJson<{ flags: FlagDto[] }>("GET", `${flagsPath(projectId)}${includeArchived ? "?include_archived=true" : ""}`);
export const getFlag = (projectId: string, flagId: string) => requestJson<FlagDto>("GET", `${flagsPath(projectId)}/${id(flagId)}`);
export const createFlag = (projectId: string, input: FlagCreateInput) => requestJson<FlagDto>("POST", flagsPath(projectId), input);
export const updateFlag = (projectId: string, flagId: string, input: { name?: string; description?: string | null; tags?: string[] }) =>
  requestJson<FlagDto>("PATCH", `${flagsPath(projectId)}/${id(flagId)}`, input);
export const archiveFlag = (projectId: string, flagId: string) => requestJson<FlagDto>("DELETE", `${flagsPath(projectId)}/${id(flagId)}`);
export const updateFlagEnvironment = (projectId: string, flagId: string, environment: string, change: FlagEnvironmentChange) =>
  requestJson<FlagDto>("PATCH", `${flagsPath(projectId)}/${id(flagId)}/environments/${id(environment)}`, change);
export const listFlagPublications = (projectId: string) => requestJson<{ publications: FlagPublication[] }>("GET", `${flagsPath(projectId)}/publications`);
export const listCohortOptions = (projectId: string) => requestJson<{ cohorts: CohortOption[] }>("GET", `/app/projects/${id(projectId)}/cohorts`);

/** Ingest answers errors as {error: "<message>"} (docs/flag-evaluation.md). */
async function ingestError(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as { error?: unknown } | null;
  const message = typeof body?.error === "string" ? body.error : `the region answered ${response.status}`;
  return new ApiError(response.status, "ingest", message);
}

/**
 * One flag for one distinct id, answered by the region from what was last published to it
 * (person properties are the stored ones, overlaid with `personProperties`).
 */
export async function evaluateFlag(
  ingestUrl: string,
  publicKey: string,
  flagKey: string,
  distinctId: string,
  personProperties: Record<string, unknown>,
): Promise<FlagEvaluation | null> {
  const response = await fetch(`${ingestUrl}/flags`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ api_key: publicKey, distinct_id: distinctId, person_properties: personProperties, flag_keys_to_evaluate: [flagKey] }),
  });
  if (!response.ok) throw await ingestError(response);
  const { flags } = (await response.json()) as { flags: Record<string, FlagEvaluation> };
  return Object.hasOwn(flags, flagKey) ? flags[flagKey]! : null;
}
