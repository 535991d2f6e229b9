// Billing through Stripe with the official client: hosted Checkout for a first subscription, an
// in-place prorated price change for a live one, the hosted customer portal, and the webhooks
// that say what an organisation's subscription became. docs/billing-stripe.md describes the
// Stripe objects and events used and how to configure the account.
import Stripe from "stripe";
import type {
  BillingCustomer,
  CheckoutResult,
  PaidPlan,
  PaymentProvider,
  SubscriptionChange,
} from "./payment-provider.ts";
import { PaymentWebhookSignatureError } from "./payment-provider.ts";
import { PaymentProviderError } from "./payment-provider-error.ts";
import { isMissingResource, providerError } from "./stripe-errors.ts";
import { liveSubscriptionStatuses, planItem, subscriptionChangeOf, type PlanPrices } from "./stripe-subscriptions.ts";

/**
 * One Stripe call may take this long. With one retry a call stays well inside the 30-second
 * request time-out of the control plane (the client's own default is 80 s).
 */
export const stripeRequestTimeoutMs = 8_000;
/** The client retries connection failures, 409 and 5xx with an idempotency key, with back-off from 0.5 s. */
export const stripeNetworkRetries = 1;
/** A webhook signed longer ago than this is refused (Stripe's own default), so a captured one cannot be replayed later. */
export const signatureToleranceSeconds = 300;

/**
 * `always_invoice`: the difference is invoiced and charged at once (a credit when moving
 * down), so what checkout answers as `proration` is what the customer pays now, not a line
 * that surfaces on next month's invoice.
 */
export const prorationBehavior = "always_invoice";

/**
 * Checkout Sessions asked for the same organisation, customer and plan within one window of
 * this length share an idempotency key: Stripe answers a second click (another tab, a double
 * click) with the first session rather than a second one that could become a second
 * subscription. Two clicks straddling a window's boundary still get two sessions; Stripe keeps
 * keys for 24 hours, far longer.
 */
export const checkoutIdempotencyWindowMs = 600_000;

/** The idempotency key of a Checkout Session (checkoutIdempotencyWindowMs). */
export function checkoutIdempotencyKey(orgId: string, customerId: string, plan: PaidPlan, nowMs: number): string {
  return `checkout-session:${orgId}:${customerId}:${plan}:${Math.floor(nowMs / checkoutIdempotencyWindowMs)}`;
}

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** Stripe price id of each paid plan. */
  prices: PlanPrices;
  /** Another API host (stripe-mock, a test server); null: api.stripe.com. */
  apiBase: URL | null;
  /** Defaults to stripeNetworkRetries. */
  maxNetworkRetries?: number;
  /** Defaults to stripeRequestTimeoutMs. */
  requestTimeoutMs?: number;
  /** Milliseconds since the epoch: proration dates and the webhook signature's age (tests move it). */
  now?: () => number;
}

type CheckoutUrls = { successUrl: string; cancelUrl: string };

export class StripePaymentProvider implements PaymentProvider {
  readonly name = "stripe";
  private readonly stripe: Stripe;
  private readonly prices: PlanPrices;
  private readonly webhookSecret: string;
  private readonly now: () => number;

  constructor(settings: StripeSettings) {
    const base = settings.apiBase;
    const protocol = base?.protocol === "http:" ? "http" : "https";
    this.stripe = new Stripe(settings.secretKey, {
      maxNetworkRetries: settings.maxNetworkRetries ?? stripeNetworkRetries,
      timeout: settings.requestTimeoutMs ?? stripeRequestTimeoutMs,
      // Latency telemetry about earlier requests is not Stripe's to collect from a self-hosted service.
      telemetry: false,
      appInfo: { name: "svc-analytics" },
      ...(base ? { host: base.hostname, port: base.port || (protocol === "http" ? 80 : 443), protocol } : {}),
    });
    this.prices = settings.prices;
    this.webhookSecret = settings.webhookSecret;
    this.now = settings.now ?? Date.now;
  }

  async checkout(customer: BillingCustomer, plan: PaidPlan, urls: CheckoutUrls): Promise<CheckoutResult> {
    const live = customer.subscriptionId ? await this.liveSubscription(customer.subscriptionId) : null;
    if (live) return this.changePlan(live, plan);
    let customerId = customer.customerId ?? (await this.createCustomer(customer));
    try {
      return await this.checkoutSession(customer, customerId, plan, urls);
    } catch (error) {
      // The stored customer was deleted in Stripe's dashboard: start over with a new one.
      if (!isMissingResource(error, "customer")) throw providerError(error, customerId);
    }
    customerId = await this.createCustomer(customer);
    try {
      return await this.checkoutSession(customer, customerId, plan, urls);
    } catch (error) {
      throw providerError(error, customerId);
    }
  }

  async portal(customerId: string, returnUrl: string): Promise<{ url: string }> {
    try {
      const session = await this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl });
      return { url: session.url };
    } catch (error) {
      throw providerError(error);
    }
  }

  async subscriptionChange(rawBody: string, headers: Headers): Promise<SubscriptionChange | null> {
    const event = await this.verifiedEvent(rawBody, headers);
    switch (event.type) {
      case "checkout.session.completed": {
        const session = event.data.object;
        if (session.mode !== "subscription" || !session.subscription) return null;
        const subscriptionId = typeof session.subscription === "string" ? session.subscription : session.subscription.id;
        const subscription = await this.retrieveSubscription(subscriptionId);
        const fallbackOrgId = session.metadata?.org_id ?? session.client_reference_id;
        return subscription ? subscriptionChangeOf(subscription, this.prices, fallbackOrgId) : null;
      }
      case "customer.subscription.created":
      case "customer.subscription.updated":
      case "customer.subscription.deleted": {
        // Stripe does not deliver events in order: the subscription as it is now, not as the
        // event saw it, so a late `updated` cannot undo a later change or a cancellation.
        const current = await this.retrieveSubscription(event.data.object.id);
        return subscriptionChangeOf(current ?? event.data.object, this.prices);
      }
      default:
        return null;
    }
  }

  private async verifiedEvent(rawBody: string, headers: Headers): Promise<Stripe.Event> {
    const signature = headers.get("stripe-signature");
    if (!signature) throw new PaymentWebhookSignatureError("missing Stripe-Signature header");
    try {
      // The tolerance is measured on this service's clock (the one tests move), in milliseconds.
      return await this.stripe.webhooks.constructEventAsync(rawBody, signature, this.webhookSecret, signatureToleranceSeconds, undefined, this.now());
    } catch (error) {
      if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
        throw new PaymentWebhookSignatureError(`Stripe-Signature does not verify: ${firstSentence(error.message)}`);
      }
      // Verified but not JSON: only a holder of the signing secret could send it; nothing to act on.
      if (error instanceof SyntaxError) throw new PaymentWebhookSignatureError("webhook body is not a JSON event");
      throw error;
    }
  }

  private async createCustomer(customer: BillingCustomer): Promise<string> {
    try {
      const created = await this.stripe.customers.create({
        email: customer.email,
        name: customer.orgName,
        metadata: { org_id: customer.orgId },
      });
      return created.id;
    } catch (error) {
      throw providerError(error);
    }
  }

  private async checkoutSession(customer: BillingCustomer, customerId: string, plan: PaidPlan, urls: CheckoutUrls): Promise<CheckoutResult> {
    const key = checkoutIdempotencyKey(customer.orgId, customerId, plan, this.now());
    let session = await this.createSession(customer, customerId, plan, urls, key);
    // The key's earlier session was completed or has expired (a subscription paid and since
    // cancelled, then a new checkout in the same window): a new one, keyed after the old.
    if (session.status !== "open") session = await this.createSession(customer, customerId, plan, urls, `${key}:${session.id}`);
    if (!session.url) throw new PaymentProviderError("failed", "payment provider returned a checkout session without a URL", null, customerId);
    return { kind: "redirect", url: session.url, customerId };
  }

  private createSession(customer: BillingCustomer, customerId: string, plan: PaidPlan, urls: CheckoutUrls, idempotencyKey: string): Promise<Stripe.Checkout.Session> {
    return this.stripe.checkout.sessions.create({
      mode: "subscription",
      customer: customerId,
      line_items: [{ price: this.prices[plan], quantity: 1 }],
      client_reference_id: customer.orgId,
      metadata: { org_id: customer.orgId },
      // The subscription carries the organisation too: its own webhooks name it without a lookup.
      subscription_data: { metadata: { org_id: customer.orgId } },
      success_url: urls.successUrl,
      cancel_url: urls.cancelUrl,
    }, { idempotencyKey });
  }

  /** The subscription when it still bills; null when it ended or no longer exists. */
  private async liveSubscription(subscriptionId: string): Promise<Stripe.Subscription | null> {
    const subscription = await this.retrieveSubscription(subscriptionId);
    return subscription && liveSubscriptionStatuses.has(subscription.status) ? subscription : null;
  }

  private async retrieveSubscription(subscriptionId: string): Promise<Stripe.Subscription | null> {
    try {
      return await this.stripe.subscriptions.retrieve(subscriptionId);
    } catch (error) {
      if (isMissingResource(error)) return null;
      throw providerError(error);
    }
  }

  private async changePlan(subscription: Stripe.Subscription, plan: PaidPlan): Promise<CheckoutResult> {
    const price = this.prices[plan];
    const item = planItem(subscription, this.prices);
    if (!item) {
      throw new PaymentProviderError("rejected", `subscription ${subscription.id} has ${subscription.items.data.length} items and none on a plan's price; change it in the Stripe dashboard`);
    }
    const currency = item.price.currency.toUpperCase();
    if (item.price.id === price) return { kind: "plan_changed", plan, proration: { amount_minor: 0, currency } };
    const customer = typeof subscription.customer === "string" ? subscription.customer : subscription.customer.id;
    const items = [{ id: item.id, price }];
    // The same proration date for the preview and the update, so the amount answered is the amount invoiced.
    const prorationDate = Math.floor(this.now() / 1000);
    try {
      const preview = await this.stripe.invoices.createPreview({
        customer,
        subscription: subscription.id,
        subscription_details: { items, proration_behavior: prorationBehavior, proration_date: prorationDate },
      });
      await this.stripe.subscriptions.update(subscription.id, { items, proration_behavior: prorationBehavior, proration_date: prorationDate });
      // A one-item change has two proration lines (credit and charge), far below a page of lines.
      const amount = preview.lines.data
        .filter((line) => line.parent?.subscription_item_details?.proration === true)
        .reduce((sum, line) => sum + line.amount, 0);
      return { kind: "plan_changed", plan, proration: { amount_minor: amount, currency: preview.currency.toUpperCase() } };
    } catch (error) {
      throw providerError(error);
    }
  }
}

function firstSentence(text: string): string {
  const end = text.indexOf(". ");
  return (end === -1 ? text : text.slice(0, end + 1)).slice(0, 200);
}
