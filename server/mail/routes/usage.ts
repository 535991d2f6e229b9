// A tenant's usage (its full-access key): this month's emails against its plan, and their price
// in minor units (cents) line by line.
import { Elysia } from "elysia";
import type { MailContext } from "../context.ts";
import { priceCurrency } from "../plans/plans.ts";
import type { MonthUsage } from "../plans/usage-service.ts";

export const usageDto = (usage: MonthUsage) => ({
  month: usage.month,
  plan: usage.plan.name,
  emails: usage.emails,
  included_emails: usage.plan.includedEmails,
  limit: usage.plan.monthlyEmailsLimit,
  resets_at: new Date(usage.resetsAt).toISOString(),
  log_retention_days: usage.plan.logRetentionDays,
  price: {
    currency: priceCurrency,
    monthly_minor: usage.price.monthlyMinor,
    tiers: usage.price.tiers.map((tier) => ({
      first_email: tier.firstEmail,
      last_email: tier.lastEmail,
      per_thousand_minor: tier.perThousandMinor,
      emails: tier.emails,
      amount_minor: tier.amountMinor,
    })),
    total_minor: usage.price.totalMinor,
  },
});

export const usageRoutes = (ctx: MailContext) =>
  new Elysia()
    .derive(async ({ request }) => ({ caller: await ctx.auth.tenant(request, "full") }))
    .get("/v1/usage", async ({ caller }) => usageDto(await ctx.usage.usage(caller.tenantId, ctx.now())));
