// What a month's emails cost on a plan: the monthly price, then each graduated tier's emails at
// its price per 1,000, pro rata and rounded up to the cent per tier (1 email at $0.80 per 1,000
// costs 1 cent), so the total is the sum of the lines a user sees.
import type { Plan } from "./plans.ts";

export interface TierCharge {
  /** The tier's first and last email of the month (last null: no end). */
  firstEmail: number;
  lastEmail: number | null;
  perThousandMinor: number;
  emails: number;
  amountMinor: number;
}

export interface MonthPrice {
  monthlyMinor: number;
  tiers: TierCharge[];
  totalMinor: number;
}

export function priceOf(plan: Plan, emails: number): MonthPrice {
  let tierStart = plan.includedEmails;
  const tiers = plan.tiers.map((tier) => {
    const end = tier.upToEmails ?? Number.POSITIVE_INFINITY;
    const inTier = Math.max(0, Math.min(emails, end) - tierStart);
    const charge: TierCharge = { firstEmail: tierStart + 1, lastEmail: tier.upToEmails, perThousandMinor: tier.perThousandMinor, emails: inTier, amountMinor: Math.ceil((inTier * tier.perThousandMinor) / 1_000) };
    tierStart = end;
    return charge;
  });
  return { monthlyMinor: plan.monthlyPriceMinor, tiers, totalMinor: tiers.reduce((sum, tier) => sum + tier.amountMinor, plan.monthlyPriceMinor) };
}
