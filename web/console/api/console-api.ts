// The console API routes the console calls (spec 1: accounts and sessions, organisations,
// projects; the console's region token from docs/dashboards.md).
import { requestJson } from "./http.ts";
import type { CreateProjectResponse, KeyDto, MeResponse, OrgDto, ProjectDto, RegionDto, RegionTokenResponse } from "./types.ts";

const path = (template: string, ...ids: string[]) => ids.reduce((built, id) => built.replace("{}", encodeURIComponent(id)), template);

export const getMe = () => requestJson<MeResponse>("GET", "/app/me");
export const signUp = (input: { name: string; email: string; password: string }) => requestJson<MeResponse>("POST", "/app/auth/signup", input);
export const logIn = (input: { email: string; password: string }) => requestJson<MeResponse>("POST", "/app/auth/login", input);
export const logOut = () => requestJson<void>("POST", "/app/auth/logout");
export const requestPasswordReset = (email: string) => requestJson<{ status: "accepted" }>("POST", "/app/auth/password-reset", { email });
export const confirmPasswordReset = (token: string, newPassword: string) =>
  requestJson<void>("POST", "/app/auth/password-reset/confirm", { token, new_password: newPassword });
export const verifyEmail = (token: string) => requestJson<void>("POST", "/app/auth/verify-email", { token });
export const resendVerification = () => requestJson<void>("POST", "/app/auth/verify-email/send");
export const acceptInvitation = (token: string) => requestJson<OrgDto>("POST", "/app/invitations/accept", { token });

export const listRegions = () => requestJson<{ regions: RegionDto[] }>("GET", "/app/regions");
export const listProjects = (orgId: string) => requestJson<{ projects: ProjectDto[] }>("GET", path("/app/orgs/{}/projects", orgId));
export const getProject = (projectId: string) => requestJson<ProjectDto>("GET", path("/app/projects/{}", projectId));
export const createProject = (orgId: string, input: { name: string; region: string; timezone: string; currency: string }) =>
  requestJson<CreateProjectResponse>("POST", path("/app/orgs/{}/projects", orgId), input);
export const listKeys = (projectId: string) => requestJson<{ keys: KeyDto[] }>("GET", path("/app/projects/{}/keys", projectId));
export const issueRegionToken = (projectId: string, environment: string) =>
  requestJson<RegionTokenResponse>("POST", path("/app/projects/{}/region-token", projectId), { environment });
