// The Stripe API objects the fake Stripe API (fake-stripe-api.ts) keeps and answers with,
// shaped as API version 2026-10-28 returns them: billing periods on subscription items,
// invoice lines whose `parent.subscription_item_details.proration` marks prorations.

export interface FakePrice {
  id: string;
  unit_amount: number;
  /** Lower case, as Stripe writes currencies. */
  currency: string;
  interval: "month" | "year";
}

export type StripeObject = Record<string, unknown> & { id: string; object: string };
export type Metadata = Record<string, string>;

let counter = 0;
/** Stripe-like ids: a prefix and 24 characters, unique within the process. */
export function stripeId(prefix: string): string {
  counter += 1;
  const random = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  return `${prefix}_${random}${String(counter).padStart(8, "0")}`;
}

export function priceObject(price: FakePrice, created: number): StripeObject {
  return {
    id: price.id,
    object: "price",
    active: true,
    billing_scheme: "per_unit",
    created,
    currency: price.currency,
    livemode: false,
    lookup_key: null,
    metadata: {},
    nickname: null,
    product: `prod_${price.id.slice("price_".length)}`,
    recurring: { interval: price.interval, interval_count: 1, meter: null, usage_type: "licensed" },
    tax_behavior: "unspecified",
    type: "recurring",
    unit_amount: price.unit_amount,
    unit_amount_decimal: String(price.unit_amount),
  };
}

export function customerObject(id: string, created: number, email: string | null, name: string | null, metadata: Metadata): StripeObject {
  return {
    id,
    object: "customer",
    address: null,
    balance: 0,
    created,
    currency: null,
    default_source: null,
    delinquent: false,
    description: null,
    email,
    invoice_prefix: id.slice(4, 12).toUpperCase(),
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata,
    name,
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: "none",
    test_clock: null,
  };
}

/** The end of a billing period that starts at `start` (Unix seconds), in whole calendar months or years. */
export function periodEnd(start: number, interval: FakePrice["interval"]): number {
  const date = new Date(start * 1000);
  if (interval === "month") date.setUTCMonth(date.getUTCMonth() + 1);
  else date.setUTCFullYear(date.getUTCFullYear() + 1);
  return Math.floor(date.getTime() / 1000);
}

export function subscriptionItemObject(subscriptionId: string, price: FakePrice, created: number, periodStart: number): StripeObject {
  return {
    id: stripeId("si"),
    object: "subscription_item",
    created,
    current_period_end: periodEnd(periodStart, price.interval),
    current_period_start: periodStart,
    discounts: [],
    metadata: {},
    price: priceObject(price, created),
    quantity: 1,
    subscription: subscriptionId,
    tax_rates: [],
  };
}

export function subscriptionObject(customer: string, price: FakePrice, metadata: Metadata, created: number): StripeObject {
  const id = stripeId("sub");
  return {
    id,
    object: "subscription",
    billing_cycle_anchor: created,
    cancel_at: null,
    cancel_at_period_end: false,
    canceled_at: null,
    collection_method: "charge_automatically",
    created,
    currency: price.currency,
    customer,
    ended_at: null,
    items: { object: "list", data: [subscriptionItemObject(id, price, created, created)], has_more: false, total_count: 1, url: `/v1/subscription_items?subscription=${id}` },
    latest_invoice: null,
    livemode: false,
    metadata,
    start_date: created,
    status: "active",
    trial_end: null,
    trial_start: null,
  };
}

export interface LineInput {
  amount: number;
  currency: string;
  description: string;
  proration: boolean;
  subscription: string;
  subscriptionItem: string;
  price: FakePrice;
  period: { start: number; end: number };
}

export function invoiceLineObject(invoiceId: string, line: LineInput): StripeObject {
  return {
    id: stripeId("il_tmp"),
    object: "line_item",
    amount: line.amount,
    currency: line.currency,
    description: line.description,
    discount_amounts: [],
    discountable: !line.proration,
    discounts: [],
    invoice: invoiceId,
    livemode: false,
    metadata: {},
    parent: {
      type: "subscription_item_details",
      invoice_item_details: null,
      subscription_item_details: {
        invoice_item: null,
        proration: line.proration,
        proration_details: line.proration ? { credited_items: null } : null,
        subscription: line.subscription,
        subscription_item: line.subscriptionItem,
      },
    },
    period: line.period,
    pricing: {
      price_details: { price: line.price.id, product: `prod_${line.price.id.slice("price_".length)}` },
      type: "price_details",
      unit_amount_decimal: String(line.price.unit_amount),
    },
    quantity: 1,
    taxes: [],
  };
}

export function invoiceObject(
  id: string,
  subscription: StripeObject,
  lines: LineInput[],
  created: number,
  status: "draft" | "paid",
): StripeObject {
  const data = lines.map((line) => invoiceLineObject(id, line));
  const total = lines.reduce((sum, line) => sum + line.amount, 0);
  const amountDue = Math.max(0, total);
  return {
    id,
    object: "invoice",
    amount_due: amountDue,
    amount_paid: status === "paid" ? amountDue : 0,
    amount_remaining: status === "paid" ? 0 : amountDue,
    billing_reason: "subscription_update",
    collection_method: "charge_automatically",
    created,
    currency: subscription.currency,
    customer: subscription.customer,
    lines: { object: "list", data, has_more: false, total_count: data.length, url: `/v1/invoices/${id}/lines` },
    livemode: false,
    parent: { type: "subscription_details", quote_details: null, subscription_details: { metadata: subscription.metadata, subscription: subscription.id } },
    period_end: created,
    period_start: created,
    status,
    subtotal: total,
    total,
  };
}
