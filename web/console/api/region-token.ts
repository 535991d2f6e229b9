// The console's key to a project's region API: a short-lived region token from
// POST /app/projects/{id}/region-token, kept in memory only (never in storage a script on the
// page could read later), renewed before it expires, and asked for again once when the region
// refuses it (revoked, or expired early by a clock that disagrees).
import type { RegionTokenResponse } from "./types.ts";

/** A token this close to its expiry is renewed rather than used. */
export const renewBeforeExpiryMs = 60_000;

export class RegionTokenSource {
  private current: RegionTokenResponse | null = null;
  private pending: Promise<RegionTokenResponse> | null = null;

  constructor(
    private readonly issue: () => Promise<RegionTokenResponse>,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token with more than renewBeforeExpiryMs left; one request at a time asks for a new one. */
  get(): Promise<RegionTokenResponse> {
    const current = this.current;
    if (current && Date.parse(current.expires_at) - this.now() > renewBeforeExpiryMs) return Promise.resolve(current);
    this.pending ??= this.issue()
      .then((issued) => (this.current = issued))
      .finally(() => (this.pending = null));
    return this.pending;
  }

  /** Forgets `refused` (the region would not take it), so the next get() asks for a new token. */
  invalidate(refused: RegionTokenResponse): void {
    if (this.current === refused) this.current = null;
  }

  /** Calls `{region_api_url}{path}` with the token; a 401 is retried once with a new token. */
  async fetch(path: string, init: RequestInit = {}, send: typeof fetch = fetch): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const token = await this.get();
      const headers = new Headers(init.headers);
      headers.set("Authorization", `Bearer ${token.token}`);
      const response = await send(`${token.region_api_url}${path}`, { ...init, headers });
      if (response.status !== 401 || attempt === 2) return response;
      await response.body?.cancel();
      this.invalidate(token);
    }
  }
}
