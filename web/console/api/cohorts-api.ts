// Cohorts: the control plane keeps them and their last calculation per environment
// (docs/cohorts-control.md); the region previews definitions and keeps static members
// (docs/cohorts.md, "Region routes").
import { requestJson } from "./http.ts";
import type { Person } from "./persons-api.ts";
import type { RegionTokenSource } from "./region-token.ts";
import { regionJson } from "./region-api.ts";
import type { CohortDefinition } from "../pages/cohorts/definition.ts";

export type CohortKind = "dynamic" | "static";

export interface CohortCalculation {
  environment: string;
  status: "ok" | "error";
  calculated_at: string;
  cohort_version: number | null;
  error: string | null;
  size: number | null;
}

export interface Cohort {
  id: string;
  project_id: string;
  name: string;
  kind: CohortKind;
  version: number;
  created_at: string;
  updated_at: string;
  calculation: CohortCalculation | null;
  calculations: CohortCalculation[];
  created_by: string | null;
  definition: CohortDefinition | null;
  description: string | null;
}

export interface CohortInput {
  name: string;
  description: string | null;
  definition: CohortDefinition | null;
}

export interface CohortPreview {
  size: number;
  sample: Person[];
}

/** One POST /cohorts/{id}/static call's answer. */
export interface StaticEdit {
  cohort_id: string;
  environment: string;
  size: number;
  added: number;
  removed: number;
  not_found: ({ distinct_id: string } | { person_id: string })[];
}

/** Persons one static edit names at most (staticCohortPersonsPerCallMax in the region). */
export const staticPersonsPerCallMax = 1000;

const base = (projectId: string) => `/app/projects/${encodeURIComponent(projectId)}/cohorts`;
const one = (projectId: string, cohortId: string) => `${base(projectId)}/${encodeURIComponent(cohortId)}`;

export const listCohorts = (projectId: string) => requestJson<{ cohorts: Cohort[] }>("GET", base(projectId)).then(({ cohorts }) => cohorts);
export const getCohort = (projectId: string, cohortId: string) => requestJson<Cohort>("GET", one(projectId, cohortId));
export const createCohort = (projectId: string, kind: CohortKind, input: CohortInput) => requestJson<Cohort>("POST", base(projectId), { kind, ...input });
export const updateCohort = (projectId: string, cohortId: string, input: Partial<CohortInput>) => requestJson<Cohort>("PATCH", one(projectId, cohortId), input);
export const deleteCohort = (projectId: string, cohortId: string) => requestJson<void>("DELETE", one(projectId, cohortId));
export const calculateCohort = (projectId: string, cohortId: string, environment: string) =>
  requestJson<Cohort>("POST", `${one(projectId, cohortId)}/calculate`, { environment });

export const previewCohort = (tokens: RegionTokenSource, definition: CohortDefinition, sampleSize: number) =>
  regionJson<CohortPreview>(tokens, "POST", "/cohorts/preview", { definition, sample_size: sampleSize });

export const editStaticCohort = (tokens: RegionTokenSource, cohortId: string, change: { add?: { distinct_id: string }[]; remove?: { distinct_id: string }[] }) =>
  regionJson<StaticEdit>(tokens, "POST", `/cohorts/${encodeURIComponent(cohortId)}/static`, change);
