// Which payment provider billing charges through, from environment variables (documented in
// the README and docs/billing-stripe.md). STRIPE_SECRET_KEY unset: no provider, billing is the
// self-hosted plan. Set: every other Stripe setting must be present and well formed, and a
// mistake stops the start rather than surfacing as a failed checkout later. Messages name the
// setting, never echo a secret.
import type { PaymentProvider } from "./payment-provider.ts";
import { paidPlans } from "./payment-provider.ts";
import { StripePaymentProvider, type StripeSettings } from "./stripe-provider.ts";
import type { PlanPrices } from "./stripe-subscriptions.ts";

export class PaymentProviderSettingsError extends Error {}

const secretKeyPattern = /^(?:sk|rk)_(?:test|live)_[A-Za-z0-9]+$/;
const webhookSecretPattern = /^whsec_[A-Za-z0-9+/=]+$/;
const priceIdPattern = /^price_[A-Za-z0-9]+$/;
/** Longer values are not Stripe's; quoted in messages up to here. */
const quotedCharsMax = 60;

const priceVariables = { starter: "STRIPE_PRICE_STARTER", growth: "STRIPE_PRICE_GROWTH", scale: "STRIPE_PRICE_SCALE" } as const;

export function parseStripeSettings(env: Record<string, string | undefined>): StripeSettings | null {
  const secretKey = env.STRIPE_SECRET_KEY?.trim() || null;
  if (!secretKey) return null;
  if (!secretKeyPattern.test(secretKey)) {
    throw new PaymentProviderSettingsError("STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_test_…, sk_live_…, rk_test_…, rk_live_…)");
  }
  const webhookSecret = env.STRIPE_WEBHOOK_SECRET?.trim() || null;
  if (!webhookSecret) throw new PaymentProviderSettingsError("STRIPE_SECRET_KEY is set without STRIPE_WEBHOOK_SECRET (the endpoint's signing secret, whsec_…)");
  if (!webhookSecretPattern.test(webhookSecret)) throw new PaymentProviderSettingsError("STRIPE_WEBHOOK_SECRET must be the endpoint's signing secret (whsec_…)");
  return { secretKey, webhookSecret, prices: parsePrices(env), apiBase: parseApiBase(env.STRIPE_API_BASE) };
}

function parsePrices(env: Record<string, string | undefined>): PlanPrices {
  const missing = paidPlans.filter((plan) => !env[priceVariables[plan]]?.trim()).map((plan) => priceVariables[plan]);
  if (missing.length > 0) throw new PaymentProviderSettingsError(`STRIPE_SECRET_KEY is set without ${missing.join(", ")} (each plan's Stripe price id, price_…)`);
  const prices = {} as PlanPrices;
  for (const plan of paidPlans) {
    const value = env[priceVariables[plan]]!.trim();
    if (!priceIdPattern.test(value)) {
      throw new PaymentProviderSettingsError(`${priceVariables[plan]} must be a Stripe price id (price_…), got "${value.slice(0, quotedCharsMax)}"`);
    }
    prices[plan] = value;
  }
  // Webhooks find the plan from the price: two plans on one price could not be told apart.
  const duplicate = paidPlans.find((plan, index) => paidPlans.findIndex((other) => prices[other] === prices[plan]) !== index);
  if (duplicate) throw new PaymentProviderSettingsError(`${priceVariables[duplicate]} repeats another plan's price; each plan needs its own price`);
  return prices;
}

function parseApiBase(raw: string | undefined): URL | null {
  const value = raw?.trim();
  if (!value) return null;
  const quoted = value.slice(0, quotedCharsMax);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PaymentProviderSettingsError(`STRIPE_API_BASE must be an http:// or https:// URL, got "${quoted}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new PaymentProviderSettingsError(`STRIPE_API_BASE must be an http:// or https:// URL, got "${quoted}"`);
  // The client sends /v1/… to host and port: a path, credentials or query would be dropped silently.
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    throw new PaymentProviderSettingsError(`STRIPE_API_BASE must be a scheme, host and optional port only (like http://localhost:12111), got "${quoted}"`);
  }
  return url;
}

export function createPaymentProvider(env: Record<string, string | undefined>): PaymentProvider | null {
  const settings = parseStripeSettings(env);
  return settings ? new StripePaymentProvider(settings) : null;
}
