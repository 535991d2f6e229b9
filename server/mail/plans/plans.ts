// The mail service's plans, as data: what a month includes, what more costs, whether sending
// stops at a cap, and how long logs are kept. Prices are in US cents (minor units); docs/mail.md
// ("Plans and limits") shows this table to users, so change both together.

export const planNames = ["free", "growth", "scale"] as const;
export type PlanName = (typeof planNames)[number];

export const defaultPlan: PlanName = "free";

/** Emails past the previous tier's end, up to `upToEmails` (null: no end), each 1,000 at `perThousandMinor`. */
export interface PriceTier {
  upToEmails: number | null;
  perThousandMinor: number;
}

export interface Plan {
  name: PlanName;
  /** Charged every month; covers the first `includedEmails`. */
  monthlyPriceMinor: number;
  includedEmails: number;
  /** Sends past this many emails in a month are refused (null: never refused, billed by `tiers`). */
  monthlyEmailsLimit: number | null;
  /** Graduated tiers after the included emails, in order. */
  tiers: readonly PriceTier[];
  /** Emails, their recipients, attempts and events are deleted this long after they settle. */
  logRetentionDays: number;
}

export const priceCurrency = "usd";

export const plans: Readonly<Record<PlanName, Plan>> = {
  free: { name: "free", monthlyPriceMinor: 0, includedEmails: 10_000, monthlyEmailsLimit: 10_000, tiers: [], logRetentionDays: 1 },
  growth: {
    name: "growth",
    monthlyPriceMinor: 2_000,
    includedEmails: 50_000,
    monthlyEmailsLimit: null,
    tiers: [
      { upToEmails: 500_000, perThousandMinor: 80 },
      { upToEmails: null, perThousandMinor: 60 },
    ],
    logRetentionDays: 7,
  },
  scale: {
    name: "scale",
    monthlyPriceMinor: 9_000,
    includedEmails: 200_000,
    monthlyEmailsLimit: null,
    tiers: [
      { upToEmails: 2_000_000, perThousandMinor: 50 },
      { upToEmails: null, perThousandMinor: 35 },
    ],
    logRetentionDays: 30,
  },
};

export const isPlanName = (value: string): value is PlanName => (planNames as readonly string[]).includes(value);

export const dayMs = 86_400_000;
export const logRetentionMs = (plan: Plan) => plan.logRetentionDays * dayMs;
