// What the billing page says about roles, plans and stages (the control plane enforces the
// same: billing.write is the owner's alone, spec 1 Authentication 7).
import type { Role } from "../../api/types.ts";
import type { BillingOverview } from "../../api/billing-api.ts";

export const planLabels: Record<string, string> = { self_hosted: "Self-hosted", starter: "Starter", growth: "Growth", scale: "Scale" };

const article = (role: Role) => (role === "admin" || role === "owner" ? "an" : "a");

/** Why `role` may not change the plan, the spend cap or billing details, or null when it may. */
export function ownerOnlyReason(role: Role, what: string): string | null {
  return role === "owner" ? null : `Only owners can ${what}. You are ${article(role)} ${role}.`;
}

/** Why checkout and the portal cannot be used, whatever the role, or null when they can. */
export function notConfiguredReason(billing: BillingOverview): string | null {
  return billing.payment_provider.configured
    ? null
    : "Billing is not configured on this deployment: no payment provider is set up (STRIPE_SECRET_KEY and the plans' prices; see docs/billing.md).";
}

/** Major units typed in the cap field (e.g. "49.50") as minor units, or null when it is not an amount. */
export function parseMajorAmount(text: string): number | null {
  const match = /^\s*(\d{1,9})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
}

/** Minor units as the cap field shows them (two decimals, no currency sign). */
export const majorAmountText = (minor: number) => (minor / 100).toFixed(2);
