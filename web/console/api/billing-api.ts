// The console API routes of an organisation's billing page (spec 1, "Console API:
// organisations, members, billing"; the overview's fields are in docs/billing.md).
import { requestJson } from "./http.ts";

export interface BillingMeter {
  included: number;
  overage_per_1000_minor: number;
}

export interface BillingOverview {
  org_id: string;
  currency: string;
  plan: { name: string; price_minor: number; events: BillingMeter | null; replay_recordings: BillingMeter | null };
  subscription: { status: string } | null;
  period: { start: string; end: string; source: "subscription" | "calendar_month" };
  usage: { events: number; events_received: number; replay_recordings: number; read_at: string; unreachable_regions: string[] };
  invoice: { current_minor: number; projected_minor: number };
  spend_cap_minor: number | null;
  spend_cap_min_minor: number | null;
  spend_cap_max_minor: number | null;
  ingest: { stage: "full" | "sampling"; keep_ratio: number };
  payment_provider: { configured: boolean; name: string | null; has_customer: boolean };
}

export type CheckoutResult =
  | { kind: "redirect"; url: string }
  | { kind: "plan_changed"; plan: string; proration: { amount_minor: number; currency: string } };

export const paidPlans = ["starter", "growth", "scale"] as const;

const billing = (orgId: string) => `/app/orgs/${encodeURIComponent(orgId)}/billing`;

export const getBilling = (orgId: string) => requestJson<BillingOverview>("GET", billing(orgId));
export const setSpendCap = (orgId: string, spendCapMinor: number) =>
  requestJson<{ spend_cap_minor: number; previous_spend_cap_minor: number }>("PATCH", `${billing(orgId)}/cap`, { spend_cap_minor: spendCapMinor });
export const startCheckout = (orgId: string, plan: string) => requestJson<CheckoutResult>("POST", `${billing(orgId)}/checkout`, { plan });
export const openPortal = (orgId: string) => requestJson<{ url: string }>("POST", `${billing(orgId)}/portal`);
