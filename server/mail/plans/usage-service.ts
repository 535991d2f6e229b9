// A tenant's emails this month against its plan: a send reserves its emails (refused on the
// free plan past 10,000 a month, until the next month begins in UTC), a scheduled email
// cancelled before it was sent gives them back, and the usage route shows count and price.
import assert from "node:assert";
import { ApiError, notFound } from "../../http/errors.ts";
import type { UsageStore } from "../store/usage.ts";
import type { TenantStore } from "../store/tenants.ts";
import { monthOf, nextMonthStart } from "./month.ts";
import { plans, type Plan } from "./plans.ts";
import { priceOf, type MonthPrice } from "./price.ts";

export interface MonthUsage {
  month: string;
  emails: number;
  plan: Plan;
  /** When the month ends and the count starts again at zero. */
  resetsAt: number;
  price: MonthPrice;
}

export const monthlyQuotaExceeded = (plan: Plan, limit: number, used: number, emails: number, resetsAt: number, now: number) =>
  new ApiError(
    429,
    "monthly_quota_exceeded",
    `the ${plan.name} plan sends ${limit.toLocaleString("en-US")} emails a month; ${used.toLocaleString("en-US")} are used and this send has ${emails.toLocaleString("en-US")}; the count resets at ${new Date(resetsAt).toISOString()}`,
    { "Retry-After": String(Math.ceil((resetsAt - now) / 1_000)) },
  );

export class UsageService {
  constructor(
    private readonly counts: UsageStore,
    private readonly tenants: TenantStore,
  ) {}

  /**
   * Counts `emails` (one per envelope recipient) in the month of `now`, or throws 429
   * `monthly_quota_exceeded` when the plan's cap would be passed; answers the month (to give
   * back to if the email is cancelled before it is sent) and the month's count with these.
   */
  async reserve(tenantId: string, emails: number, now: number): Promise<{ month: string; monthTotal: number }> {
    assert(Number.isSafeInteger(emails) && emails > 0, "reserve counts one or more emails");
    const month = monthOf(now);
    const total = await this.counts.reserve(tenantId, month, emails);
    if (total !== null) return { month, monthTotal: total };
    const tenant = await this.tenants.get(tenantId);
    if (!tenant) throw notFound("tenant");
    const plan = plans[tenant.plan];
    throw monthlyQuotaExceeded(plan, plan.monthlyEmailsLimit ?? 0, await this.counts.emails(tenantId, month), emails, nextMonthStart(now), now);
  }

  /** Gives back the emails of a scheduled email cancelled before it was sent, in the month they were counted in. */
  release = (tenantId: string, emails: number, month: string) => this.counts.release(tenantId, month, emails);

  async usage(tenantId: string, now: number): Promise<MonthUsage> {
    const tenant = await this.tenants.get(tenantId);
    if (!tenant) throw notFound("tenant");
    const month = monthOf(now);
    const emails = await this.counts.emails(tenantId, month);
    const plan = plans[tenant.plan];
    return { month, emails, plan, resetsAt: nextMonthStart(now), price: priceOf(plan, emails) };
  }
}
