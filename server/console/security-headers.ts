// The headers every console answer carries. The console renders what anyone holding a public
// key sent as text only; these make a mistake there, or an injected asset, unable to run or
// leak anything: scripts and styles come only from our own hashed files (no inline code, no
// eval), nothing may frame the console, and no page URL (some carry single-use tokens) is
// sent on as a referrer.

/**
 * `connectOrigin`: where the console's API calls go besides its own origin: the origin of
 * PUBLIC_URL, which the region and ingest URLs the control plane hands out are built on.
 */
export function contentSecurityPolicy(connectOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self' ${connectOrigin}`,
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join("; ");
}

export function securityHeaders(connectOrigin: string): Record<string, string> {
  return {
    "Content-Security-Policy": contentSecurityPolicy(connectOrigin),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
  };
}
