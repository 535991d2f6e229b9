// Every route a tenant key calls takes one request from the key's bucket, once its key has been
// accepted (so a refused key still gets its 401 or 403) and before the body is validated. The
// answer says the state of the bucket in RateLimit-Limit, RateLimit-Remaining and
// RateLimit-Reset (seconds until full); a 429 `rate_limited` adds Retry-After. Global, so the
// routes `use`d after it in mail.ts are all limited. The key is looked up once per request
// (MailAuth keeps each request's caller), however many hooks ask.
import { Elysia } from "elysia";
import { ApiError } from "../../http/errors.ts";
import type { MailContext } from "../context.ts";
import type { RateLimitVerdict } from "../plans/rate-limiter.ts";

const rateLimitHeaders = (verdict: RateLimitVerdict) => ({
  "RateLimit-Limit": String(verdict.limit),
  "RateLimit-Remaining": String(verdict.remaining),
  "RateLimit-Reset": String(verdict.resetSeconds),
});

export const rateLimitHook = (ctx: MailContext) =>
  new Elysia().onBeforeHandle({ as: "global" }, async ({ request, set }) => {
    const verdict = await ctx.auth.rateLimit(request);
    if (!verdict) return;
    if (!verdict.allowed) {
      const message = `this API key may make ${ctx.settings.rateLimitBurst} requests at once and ${ctx.settings.rateLimitPerSecond} a second; retry after ${verdict.retryAfterSeconds} s`;
      throw new ApiError(429, "rate_limited", message, { "Retry-After": String(verdict.retryAfterSeconds), ...rateLimitHeaders(verdict) });
    }
    Object.assign(set.headers, rateLimitHeaders(verdict));
  });
