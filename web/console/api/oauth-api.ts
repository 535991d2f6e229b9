// The console routes of OAuth (docs/oauth.md): the consent page's view of an authorization
// request and the person's decision, and the applications they connected (spec 1: ConnectionDto).
import { requestJson } from "./http.ts";

export interface AuthorizationRequestDto {
  id: string;
  client_id: string;
  client_name: string;
  client_uri: string | null;
  redirect_uri: string;
  /** What the application asked for: the page starts with these chosen. */
  scopes: string[];
  /** What the application registered for: nothing else can be approved. */
  client_scopes: string[];
  /** Where the tokens will work: {base}/v1, {base}/mcp. */
  resources: string[];
  expires_at: string;
}

export interface ApproveRequest {
  org_id: string;
  scopes: string[];
  project_ids?: string[];
}

export interface ConnectionDto {
  id: string;
  client_id: string;
  client_name: string;
  org_id: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
}

const id = encodeURIComponent;
const authorization = (requestId: string) => `/app/oauth/authorizations/${id(requestId)}`;

export const getAuthorizationRequest = (requestId: string) => requestJson<AuthorizationRequestDto>("GET", authorization(requestId));
export const approveAuthorization = (requestId: string, input: ApproveRequest) => requestJson<{ redirect_to: string }>("POST", `${authorization(requestId)}/approve`, input);
export const denyAuthorization = (requestId: string) => requestJson<{ redirect_to: string }>("POST", `${authorization(requestId)}/deny`);

export const listConnections = () => requestJson<{ connections: ConnectionDto[] }>("GET", "/app/oauth/connections");
export const revokeConnection = (grantId: string) => requestJson<void>("DELETE", `/app/oauth/connections/${id(grantId)}`);
