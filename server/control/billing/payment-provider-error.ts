// What a route answers when the payment provider cannot do what was asked: 503 `unavailable`
// with a message a person can act on. It is an ApiError, so a route that lets it through gets
// the spec's error body from the one place errors are mapped. Provider-neutral on purpose: the
// routes import this, never the provider's own client or error classes.
import { ApiError } from "../../http/errors.ts";

/** How long a client should wait before trying again after a transient provider failure. */
export const providerRetryAfterSeconds = 30;

export type PaymentProviderFailure =
  /** No answer: connection refused, reset, DNS or time-out. Transient. */
  | "unreachable"
  /** The provider is throttling this account. Transient. */
  | "rate_limited"
  /** The provider refused this service's credentials (wrong or revoked key, missing permission). */
  | "credentials"
  /** The provider refused the request itself (unknown price or customer, invalid state). */
  | "rejected"
  /** The provider failed (5xx) or answered something this service cannot use. Transient. */
  | "failed";

const transient: ReadonlySet<PaymentProviderFailure> = new Set(["unreachable", "rate_limited", "failed"]);

export class PaymentProviderError extends ApiError {
  constructor(
    readonly failure: PaymentProviderFailure,
    message: string,
    /** The provider's id for the failed request, for the operator's logs (never a secret). */
    readonly providerRequestId: string | null = null,
    /**
     * A customer created before the failure (checkout creates the customer, then the session):
     * the caller stores it so the next attempt reuses it instead of creating another.
     */
    readonly customerId: string | null = null,
  ) {
    super(503, "unavailable", message, transient.has(failure) ? { "Retry-After": String(providerRetryAfterSeconds) } : {});
  }
}
