// The console API routes of revenue integrations (/app/projects/{id}/integrations…, the mirror
// of spec 1's /v1 routes; docs/revenue.md).
import { requestJson } from "./http.ts";

export const integrationProviders = ["stripe", "revenuecat", "app_store", "play_store"] as const;
export type IntegrationProvider = (typeof integrationProviders)[number];

export interface IntegrationDto {
  id: string;
  project_id: string;
  provider: IntegrationProvider;
  status: "active" | "disabled";
  has_secret: boolean;
  region_synced: boolean;
  webhook_url: string;
  config: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  name: string | null;
  secret_last4: string | null;
}

export interface CreateIntegrationInput {
  provider: IntegrationProvider;
  name?: string | null;
  secret?: string;
  config?: Record<string, unknown>;
}

export interface UpdateIntegrationInput {
  name?: string | null;
  secret?: string;
  status?: "active" | "disabled";
  config?: Record<string, unknown>;
}

const id = encodeURIComponent;
const base = (projectId: string) => `/app/projects/${id(projectId)}/integrations`;

export const listIntegrations = (projectId: string) => requestJson<{ integrations: IntegrationDto[] }>("GET", base(projectId));
export const createIntegration = (projectId: string, input: CreateIntegrationInput) => requestJson<IntegrationDto>("POST", base(projectId), input);
export const updateIntegration = (projectId: string, integrationId: string, input: UpdateIntegrationInput) =>
  requestJson<IntegrationDto>("PATCH", `${base(projectId)}/${id(integrationId)}`, input);
export const rotateIntegrationToken = (projectId: string, integrationId: string) =>
  requestJson<IntegrationDto>("POST", `${base(projectId)}/${id(integrationId)}/rotate-token`);
export const deleteIntegration = (projectId: string, integrationId: string) => requestJson<void>("DELETE", `${base(projectId)}/${id(integrationId)}`);
