// Who is calling the mail API: `Authorization: Bearer <key>` as the operator's root key, or a
// tenant's live key (`full`, or `sending`). Every refusal is the same 401 after the same work (a
// hash and one indexed lookup); a sending key on a route it may not use is a 403 that names
// what it can do (it is a valid key: nothing is revealed). Each tenant key's requests are
// rate limited (plans/rate-limiter.ts); the operator's root key is not.
import { ApiError, forbidden } from "../http/errors.ts";
import { identifyKey } from "../service-keys.ts";
import type { RateLimiter, RateLimitVerdict } from "./plans/rate-limiter.ts";
import type { MailKey, TenantStore } from "./store/tenants.ts";

export type MailCaller = { kind: "root" } | { kind: "key"; key: MailKey };

export const mailUnauthorized = () => new ApiError(401, "unauthorized", "missing or invalid API key (send it as Authorization: Bearer <key>)");

export class MailAuth {
  constructor(
    private readonly rootKeyHash: string,
    private readonly tenants: TenantStore,
    private readonly limiter: RateLimiter,
  ) {}

  private caller(authorization: string | null): Promise<MailCaller | null> {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? "")?.[1] ?? "";
    return identifyKey(token, this.rootKeyHash, (hash) => this.tenants.activeKey(hash), "the mail service's store does not answer");
  }

  async root(authorization: string | null): Promise<void> {
    if ((await this.caller(authorization))?.kind !== "root") throw mailUnauthorized();
  }

  /** A tenant's key; `full` routes refuse a sending key with 403. */
  async tenant(authorization: string | null, needs: "full" | "sending"): Promise<MailKey> {
    const caller = await this.caller(authorization);
    if (caller?.kind !== "key") throw mailUnauthorized();
    if (needs === "full" && caller.key.permission !== "full") throw forbidden("this key has sending access only: it can send emails (POST /v1/emails) and nothing else");
    return caller.key;
  }

  /** Charges one request to the caller's tenant key; null for the root key and for a key the route will refuse. */
  async rateLimit(authorization: string | null): Promise<RateLimitVerdict | null> {
    const caller = await this.caller(authorization);
    return caller?.kind === "key" ? this.limiter.take(caller.key.id) : null;
  }
}
