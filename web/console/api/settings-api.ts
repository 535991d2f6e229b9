// The console API routes of the settings pages: a project's name, keys, flag secret keys and
// deletion; an organisation's name, members and invitations; the person's tokens, sessions and
// password (spec 1; the console paths the spec does not show are the README's).
import { requestJson } from "./http.ts";
import type {
  CreatedTokenResponse, CreateTokenRequest, FlagSecretKeyCreated, FlagSecretKeyDto, InvitationDto, MemberDto, MembersResponse, RotateKeyResponse, SessionDto, TokenDto,
} from "./settings-types.ts";
import type { KeyDto, OrgDto, ProjectDto, Role } from "./types.ts";

const id = encodeURIComponent;
const project = (projectId: string) => `/app/projects/${id(projectId)}`;
const org = (orgId: string) => `/app/orgs/${id(orgId)}`;

export const renameProject = (projectId: string, name: string) => requestJson<ProjectDto>("PATCH", project(projectId), { name });
export const deleteProject = (projectId: string) => requestJson<void>("DELETE", project(projectId));

/** keep_old: the old key stays accepted until it is revoked; otherwise it is revoked now. */
export const rotateKey = (projectId: string, keyId: string, keepOld: boolean) =>
  requestJson<RotateKeyResponse>("POST", `${project(projectId)}/keys/${id(keyId)}/rotate`, { keep_old: keepOld });
export const revokeKey = (projectId: string, keyId: string) => requestJson<KeyDto>("POST", `${project(projectId)}/keys/${id(keyId)}/revoke`);
export const updateKeyOrigins = (projectId: string, keyId: string, origins: string[]) =>
  requestJson<KeyDto>("PATCH", `${project(projectId)}/keys/${id(keyId)}`, { allowed_origins: origins });

export const listFlagSecretKeys = (projectId: string) => requestJson<{ keys: FlagSecretKeyDto[] }>("GET", `${project(projectId)}/flag-secret-keys`);
export const createFlagSecretKey = (projectId: string, input: { name: string; environment: string }) =>
  requestJson<FlagSecretKeyCreated>("POST", `${project(projectId)}/flag-secret-keys`, input);
export const revokeFlagSecretKey = (projectId: string, keyId: string) =>
  requestJson<FlagSecretKeyDto>("POST", `${project(projectId)}/flag-secret-keys/${id(keyId)}/revoke`);

export const renameOrg = (orgId: string, name: string) => requestJson<OrgDto>("PATCH", org(orgId), { name });
export const listMembers = (orgId: string) => requestJson<MembersResponse>("GET", `${org(orgId)}/members`);
export const changeMemberRole = (orgId: string, memberId: string, role: Role) => requestJson<MemberDto>("PATCH", `${org(orgId)}/members/${id(memberId)}`, { role });
export const removeMember = (orgId: string, memberId: string) => requestJson<void>("DELETE", `${org(orgId)}/members/${id(memberId)}`);
export const inviteMember = (orgId: string, input: { email: string; role: Role }) => requestJson<InvitationDto>("POST", `${org(orgId)}/invitations`, input);
export const revokeInvitation = (orgId: string, invitationId: string) => requestJson<void>("DELETE", `${org(orgId)}/invitations/${id(invitationId)}`);

export const listTokens = () => requestJson<{ tokens: TokenDto[] }>("GET", "/app/tokens");
export const createToken = (input: CreateTokenRequest) => requestJson<CreatedTokenResponse>("POST", "/app/tokens", input);
export const revokeToken = (tokenId: string) => requestJson<void>("DELETE", `/app/tokens/${id(tokenId)}`);

export const listSessions = () => requestJson<{ sessions: SessionDto[] }>("GET", "/app/auth/sessions");
export const revokeSession = (sessionId: string) => requestJson<void>("DELETE", `/app/auth/sessions/${id(sessionId)}`);
export const revokeOtherSessions = () => requestJson<{ revoked: number }>("POST", "/app/auth/sessions/revoke-others");
export const changePassword = (input: { current_password: string; new_password: string }) => requestJson<void>("POST", "/app/auth/change-password", input);
