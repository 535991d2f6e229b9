// Which redirect URIs a client may register (RFC 6749 §3.1.2, RFC 8252 §7.3, OAuth 2.1 §2.3):
// https anywhere, http only to the loopback interface (native apps listening on a local
// port); never a fragment or user-info. Authorization requests must then name one of them
// exactly, so no redirect ever goes anywhere the client did not register.

export const redirectUrisMax = 10;
export const redirectUriLengthMax = 2000;

const loopbackHosts = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Why `uri` may not be registered, or null when it may. */
export function redirectUriProblem(uri: unknown): string | null {
  if (typeof uri !== "string" || uri.length === 0) return "each redirect URI must be a non-empty string";
  if (uri.length > redirectUriLengthMax) return `a redirect URI may have at most ${redirectUriLengthMax} characters`;
  if (uri.includes("#")) return "a redirect URI must not have a fragment";
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `not an absolute URI: ${uri}`;
  }
  if (url.username || url.password) return "a redirect URI must not carry user information";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && loopbackHosts.has(url.hostname)) return null;
  return "a redirect URI must use https, or http on a loopback host (127.0.0.1, localhost, [::1])";
}
