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

  /** Each request's key is looked up once, however many of its hooks ask (rate limit, parse, handler). */
  private readonly callers = new WeakMap<Request, Promise<MailCaller | null>>();

  private caller(request: Request): Promise<MailCaller | null> {
    let caller = this.callers.get(request);
    if (!caller) {
      const token = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization")?.trim() ?? "")?.[1] ?? "";
      caller = identifyKey(token, this.rootKeyHash, (hash) => this.tenants.activeKey(hash), "the mail service's store does not answer");
      this.callers.set(request, caller);
    }
    return caller;
  }

  async root(request: Request): Promise<void> {
    if ((await this.caller(request))?.kind !== "root") throw mailUnauthorized();
  }

  /** A tenant's key; `full` routes refuse a sending key with 403. */
  async tenant(request: Request, needs: "full" | "sending"): Promise<MailKey> {
    const caller = await this.caller(request);
    if (caller?.kind !== "key") throw mailUnauthorized();
    if (needs === "full" && caller.key.permission !== "full") throw forbidden("this key has sending access only: it can send emails (POST /v1/emails) and nothing else");
    return caller.key;
  }

  /** Charges one request to the caller's tenant key; null for the root key and for a key the route will refuse. */
  async rateLimit(request: Request): Promise<RateLimitVerdict | null> {
    const caller = await this.caller(request);
    return caller?.kind === "key" ? this.limiter.take(caller.key.id) : null;
  }
}
