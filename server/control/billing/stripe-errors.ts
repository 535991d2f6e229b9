// Stripe's errors, turned into the provider-neutral PaymentProviderError the routes answer with.
// Messages never carry a key: Stripe masks keys in its own messages, and anything that still
// looks like one is replaced before it can reach a response or a log.
import Stripe from "stripe";
import { PaymentProviderError } from "./payment-provider-error.ts";

/** Stripe's message is quoted in responses; beyond this it is cut. */
export const providerMessageCharsMax = 300;

const keyPattern = /\b(?:sk|rk|pk|whsec)_[A-Za-z0-9_*]+/g;

export function redactKeys(text: string): string {
  return text.replace(keyPattern, "[redacted]").slice(0, providerMessageCharsMax);
}

/** Stripe's "No such customer" for the given parameter: the stored id is stale. */
export function isMissingResource(error: unknown, param?: string): boolean {
  return (
    error instanceof Stripe.errors.StripeInvalidRequestError &&
    error.code === "resource_missing" &&
    (param === undefined || error.param === param)
  );
}

/** A Stripe error becomes a PaymentProviderError; anything else (a bug) passes through as it is. */
export function providerError(error: unknown, customerId: string | null = null): unknown {
  if (!(error instanceof Stripe.errors.StripeError)) return error;
  const requestId = error.requestId ?? null;
  if (error instanceof Stripe.errors.StripeConnectionError) {
    return new PaymentProviderError("unreachable", "payment provider unreachable; try again shortly", requestId, customerId);
  }
  if (error instanceof Stripe.errors.StripeRateLimitError) {
    return new PaymentProviderError("rate_limited", "payment provider is throttling requests; try again shortly", requestId, customerId);
  }
  if (error instanceof Stripe.errors.StripeAuthenticationError || error instanceof Stripe.errors.StripePermissionError) {
    return new PaymentProviderError("credentials", "payment provider refused this service's credentials", requestId, customerId);
  }
  if (error instanceof Stripe.errors.StripeInvalidRequestError || error instanceof Stripe.errors.StripeIdempotencyError) {
    return new PaymentProviderError("rejected", `payment provider refused the request: ${redactKeys(error.message)}`, requestId, customerId);
  }
  const status = error.statusCode ? ` (status ${error.statusCode})` : "";
  return new PaymentProviderError("failed", `payment provider failed${status}; try again shortly`, requestId, customerId);
}
