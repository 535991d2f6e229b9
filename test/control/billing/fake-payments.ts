// A payment provider for tests: Stripe's API cannot be reached here, so this stands behind the
// same interface the shipped Stripe implementation has (server/control/billing/payment-provider.ts).
// Its webhooks are JSON SubscriptionChange bodies "signed" with a header.
import { PaymentWebhookSignatureError, type BillingCustomer, type CheckoutResult, type PaidPlan, type PaymentProvider, type SubscriptionChange } from "../../../server/control/billing/payment-provider.ts";

export const fakeSignatureHeader = "x-fake-signature";
export const fakeSignature = "signed-by-fake";

export class FakePayments implements PaymentProvider {
  readonly name = "fake";
  readonly checkouts: { customer: BillingCustomer; plan: PaidPlan; urls: { successUrl: string; cancelUrl: string } }[] = [];
  readonly portals: { customerId: string; returnUrl: string }[] = [];
  /** The next checkout or portal call fails like a provider that is down (after creating this customer, if given). */
  failNext: { reason: string; customerId?: string } | null = null;

  private failIfAsked(): void {
    const failure = this.failNext;
    this.failNext = null;
    if (failure !== null) throw Object.assign(new Error(failure.reason), { customerId: failure.customerId ?? null });
  }

  async checkout(customer: BillingCustomer, plan: PaidPlan, urls: { successUrl: string; cancelUrl: string }): Promise<CheckoutResult> {
    this.failIfAsked();
    this.checkouts.push({ customer, plan, urls });
    if (customer.subscriptionId !== null) return { kind: "plan_changed", plan, proration: { amount_minor: 1234, currency: "usd" } };
    return { kind: "redirect", url: `https://payments.example/checkout/${customer.orgId}/${plan}`, customerId: customer.customerId ?? `cus_${customer.orgId.slice(0, 8)}` };
  }

  async portal(customerId: string, returnUrl: string): Promise<{ url: string }> {
    this.failIfAsked();
    this.portals.push({ customerId, returnUrl });
    return { url: `https://payments.example/portal/${customerId}` };
  }

  async subscriptionChange(rawBody: string, headers: Headers): Promise<SubscriptionChange | null> {
    if (headers.get(fakeSignatureHeader) !== fakeSignature) throw new PaymentWebhookSignatureError("the fake signature header is missing or wrong");
    const body = JSON.parse(rawBody) as { type: string; change?: SubscriptionChange };
    return body.type === "subscription.updated" ? body.change! : null;
  }
}

/** A webhook body the fake provider reads as this subscription change. */
export const subscriptionWebhook = (change: SubscriptionChange) => JSON.stringify({ type: "subscription.updated", change });
