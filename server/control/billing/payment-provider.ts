// The payment provider that billing charges through: hosted checkout, the customer portal, and
// the webhooks that tell the service an organisation's subscription changed. The shipped
// implementation is Stripe's (`stripe-provider.ts`); with no provider configured, billing is
// the self-hosted plan and checkout and portal answer that billing is not configured.

export const paidPlans = ["starter", "growth", "scale"] as const;
export type PaidPlan = (typeof paidPlans)[number];

export interface BillingCustomer {
  orgId: string;
  orgName: string;
  /** Who receives invoices (the owner who started checkout). */
  email: string;
  /** The provider's customer, once there is one. */
  customerId: string | null;
  /** The provider's live subscription, once there is one. */
  subscriptionId: string | null;
}

export type CheckoutResult =
  | { kind: "redirect"; url: string; customerId: string | null }
  | { kind: "plan_changed"; plan: PaidPlan; proration: { amount_minor: number; currency: string } };

/** What a provider webhook says about an organisation's subscription. */
export interface SubscriptionChange {
  orgId: string;
  customerId: string;
  subscriptionId: string;
  /** null when the subscription's price is none of the plans' (left as it was). */
  plan: PaidPlan | null;
  /** The provider's status (`active`, `trialing`, `past_due`, `canceled`, `unpaid`, …). */
  status: string;
  currentPeriodStart: string;
  currentPeriodEnd: string;
}

/** The provider's webhook signature did not verify: 400/401, nothing changes. */
export class PaymentWebhookSignatureError extends Error {}

export interface PaymentProvider {
  readonly name: string;
  /** Hosted checkout for a first subscription, or an in-place prorated change of a live one. */
  checkout(customer: BillingCustomer, plan: PaidPlan, urls: { successUrl: string; cancelUrl: string }): Promise<CheckoutResult>;
  /** A hosted customer-portal session (payment methods, invoices, cancellation). */
  portal(customerId: string, returnUrl: string): Promise<{ url: string }>;
  /** Verifies a webhook and says what it changes; null for events that change no subscription. */
  subscriptionChange(rawBody: string, headers: Headers): Promise<SubscriptionChange | null>;
}
