// OAuth's own error bodies, not the spec's ErrorBody: RFC 6749 §5.2 at the token endpoint,
// RFC 7591 §3.2.2 at registration, RFC 7009 at revocation, and §4.1.2.1 error redirects.
// Clients (oauth4webapi, the MCP SDK) parse exactly these shapes.

export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "invalid_target"
  | "unsupported_response_type"
  | "unsupported_token_type"
  | "access_denied"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "temporarily_unavailable";

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

/** Token and registration answers carry credentials: never cached (RFC 6749 §5.1). */
export const noStore = { "Cache-Control": "no-store", Pragma: "no-cache" };

export function oauthJson(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...noStore, ...headers } });
}

export function oauthErrorResponse(error: OAuthError): Response {
  return oauthJson(error.status, { error: error.code, error_description: error.description }, error.headers);
}

/** Runs an OAuth endpoint's work; an OAuthError becomes its JSON error body, anything else goes on to the surface's handler. */
export async function answerOAuth(work: () => Response | Promise<Response>): Promise<Response> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof OAuthError) return oauthErrorResponse(error);
    throw error;
  }
}
