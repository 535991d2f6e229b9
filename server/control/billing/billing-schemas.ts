// Request and response bodies of the billing routes (spec 1, Billing resources; the overview's
// fields are ours, the spec does not show them: docs/billing.md).
import { t } from "elysia";
import { paidPlans } from "./payment-provider.ts";

const Int = t.Integer();
const Nullable = <T extends ReturnType<typeof t.Integer> | ReturnType<typeof t.String>>(schema: T) => t.Union([schema, t.Null()]);

export const CapRequest = t.Object(
  { spend_cap_minor: t.Integer({ description: "New cap in minor units of the account currency; never below the plan price plus overage already billed this period" }) },
  { title: "CapRequest", additionalProperties: false },
);

export const CapResponse = t.Object(
  { spend_cap_minor: Int, previous_spend_cap_minor: t.Integer({ description: "0 when there was no cap" }) },
  { title: "CapResponse" },
);

export const CheckoutRequest = t.Object(
  { plan: t.String({ description: paidPlans.join(", ") }) },
  { title: "CheckoutRequest", additionalProperties: false },
);

export const CheckoutResult = t.Union([
  t.Object({ kind: t.Literal("redirect"), url: t.String() }),
  t.Object({ kind: t.Literal("plan_changed"), plan: t.String(), proration: t.Object({ amount_minor: Int, currency: t.String() }) }),
], { title: "CheckoutResult" });

export const PortalResponse = t.Object({ url: t.String() }, { title: "PortalResponse" });

const MeterDto = t.Object({ included: Int, overage_per_1000_minor: Int });

export const BillingOverview = t.Object({
  org_id: t.String(),
  currency: t.String(),
  plan: t.Object({
    name: t.String({ description: "self_hosted, starter, growth or scale" }),
    price_minor: Int,
    events: t.Union([MeterDto, t.Null()]),
    replay_recordings: t.Union([MeterDto, t.Null()]),
  }),
  subscription: t.Union([t.Object({ status: t.String() }), t.Null()]),
  period: t.Object({ start: t.String(), end: t.String(), source: t.String({ description: "subscription or calendar_month" }) }),
  usage: t.Object({
    events: Int,
    events_received: Int,
    replay_recordings: Int,
    read_at: t.String(),
    unreachable_regions: t.Array(t.String()),
  }),
  invoice: t.Object({ current_minor: Int, projected_minor: Int }),
  spend_cap_minor: Nullable(Int),
  spend_cap_min_minor: Nullable(Int),
  spend_cap_max_minor: Nullable(Int),
  ingest: t.Object({ stage: t.String({ description: "full or sampling" }), keep_ratio: t.Number() }),
  payment_provider: t.Object({ configured: t.Boolean(), name: Nullable(t.String()), has_customer: t.Boolean() }),
}, { title: "BillingOverview" });
