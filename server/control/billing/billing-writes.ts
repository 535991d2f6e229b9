// Billing's writes: the spend cap (PATCH …/billing/cap), checkout and portal sessions at the
// payment provider, and what its webhooks say about subscriptions. Each write that changes
// org_billing goes through applyWrite, so it is audited with its before and after.
import { eq } from "drizzle-orm";
import { nowIso } from "../../clock.ts";
import { ApiError, conflict, validation } from "../../http/errors.ts";
import type { ControlContext } from "../context.ts";
import { requireScope, type OrgAccess } from "../access.ts";
import { orgBilling, orgs } from "../db/schema.ts";
import { applyWrite, type Actor } from "../services/audited-write.ts";
import { billingAccount, billingRow, hasLiveSubscription, liveSubscriptionStatuses, type OrgBillingRow } from "./billing-account.ts";
import { paidPlans, type CheckoutResult, type PaidPlan, type PaymentProvider, type SubscriptionChange } from "./payment-provider.ts";
import { spendCapMinMinor } from "./billing-overview.ts";
import { billingCurrency, paidPlanTerms, spendCapMinorMax } from "./plans.ts";

export const billingWriteScope = "billing.write";

/** What to set up for checkout and the portal (the Stripe provider's settings; docs/billing.md). */
export const billingNotConfiguredMessage =
  "billing is not configured: this deployment has no payment provider. Set STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and STRIPE_PRICE_STARTER, STRIPE_PRICE_GROWTH and STRIPE_PRICE_SCALE (see docs/billing.md); until then every organisation is on the self-hosted plan, without limits";

export const billingNotConfigured = () => new ApiError(503, "billing_not_configured", billingNotConfiguredMessage);

export function requirePayments(ctx: ControlContext): PaymentProvider {
  if (ctx.payments === null) throw billingNotConfigured();
  return ctx.payments;
}

/** Inserts or updates the organisation's row; inside a write's transaction. */
function upsertBilling(ctx: ControlContext, orgId: string, defaults: Pick<OrgBillingRow, "plan">, changes: Partial<OrgBillingRow>): void {
  const updatedAt = nowIso();
  ctx.db.insert(orgBilling)
    .values({ orgId, ...defaults, ...changes, updatedAt })
    .onConflictDoUpdate({ target: orgBilling.orgId, set: { ...changes, updatedAt } })
    .run();
}

/**
 * A plan change never leaves the cap below the new plan's price (ingest would sample at its
 * floor for a cap it can never meet): such a cap is raised to the price with the change.
 */
function capAfterPlanChange(row: OrgBillingRow | null, plan: PaidPlan | null): Partial<OrgBillingRow> {
  const cap = row?.spendCapMinor ?? null;
  if (plan === null || cap === null) return {};
  const price = paidPlanTerms[plan].priceMinor;
  return cap < price ? { spendCapMinor: price } : {};
}

const selfHostedCapMessage = "the self-hosted plan has no price, so it takes no spend cap (a payment provider must be configured: docs/billing.md)";

/** PATCH …/billing/cap: sets the cap (audited) and pushes the keep ratio it implies. */
export async function setSpendCap(ctx: ControlContext, access: OrgAccess, capMinor: number) {
  requireScope(access, billingWriteScope);
  const nowMs = Date.now();
  const evaluation = await ctx.billing.evaluate(ctx, access.org.id, { fresh: true, nowMs });
  const { unreachableRegions } = evaluation.usage;
  if (evaluation.account.plan === null) throw validation(selfHostedCapMessage);
  if (unreachableRegions.length > 0) {
    // The minimum is the plan price plus overage billed so far: without a region's usage it would be too low.
    throw new ApiError(503, "unavailable", `the usage of region(s) ${unreachableRegions.join(", ")} cannot be read right now, so the lowest cap allowed is unknown; try again later`);
  }
  if (capMinor > spendCapMinorMax) throw validation(`spend_cap_minor must be at most ${spendCapMinorMax}`);
  // Read again after the await (a concurrent PATCH or plan change may have written meanwhile) and
  // checked and written in the same synchronous turn: nothing else writes the control database in
  // between, so the previous cap answered and audited is the one this write replaces, and the
  // minimum is the current plan's.
  const account = billingAccount(ctx, access.org.id, nowMs);
  const minimum = spendCapMinMinor({ ...evaluation, account });
  if (minimum === null) throw validation(selfHostedCapMessage);
  if (capMinor < minimum) {
    throw validation(`spend_cap_minor must be at least ${minimum} (the plan price plus overage already billed this period, in ${billingCurrency} minor units)`);
  }
  const previous = account.row?.spendCapMinor ?? null;
  const answer = { spend_cap_minor: capMinor, previous_spend_cap_minor: previous ?? 0 };
  applyWrite(ctx, access.principal, {
    action: "billing.cap",
    targetType: "org",
    targetId: access.org.id,
    orgId: access.org.id,
    before: { spend_cap_minor: previous },
    after: { spend_cap_minor: capMinor },
    apply: () => upsertBilling(ctx, access.org.id, { plan: account.planName }, { spendCapMinor: capMinor }),
  });
  await ctx.billing.evaluate(ctx, access.org.id);
  return answer;
}

export function requirePaidPlan(plan: string): PaidPlan {
  if (!(paidPlans as readonly string[]).includes(plan)) throw validation(`plan must be one of ${paidPlans.join(", ")}`);
  return plan as PaidPlan;
}

/** The checkout result as answered (spec 1): the provider's customer stays on our side. */
export type CheckoutAnswer = { kind: "redirect"; url: string } | Extract<CheckoutResult, { kind: "plan_changed" }>;

/** POST …/billing/checkout: hosted checkout, or an in-place prorated change of a live subscription. */
export async function startCheckout(ctx: ControlContext, access: OrgAccess, planInput: string): Promise<CheckoutAnswer> {
  requireScope(access, billingWriteScope);
  const plan = requirePaidPlan(planInput);
  const payments = requirePayments(ctx);
  const row = billingRow(ctx, access.org.id);
  const live = hasLiveSubscription(row);
  if (live && row!.plan === plan) throw conflict(`the organisation is already on the ${plan} plan`);
  const page = `${ctx.baseUrl()}/orgs/${access.org.id}/billing`;
  const defaults = { plan: row?.plan ?? plan };
  const recordCustomer = (customerId: string) => {
    if (customerId === row?.customerId) return;
    applyWrite(ctx, access.principal, {
      action: "billing.checkout", targetType: "org", targetId: access.org.id, orgId: access.org.id,
      before: { customer_id: row?.customerId ?? null }, after: { customer_id: customerId, plan },
      apply: () => upsertBilling(ctx, access.org.id, defaults, { customerId }),
    });
  };
  const result = await providerCall(async () => {
    try {
      return await payments.checkout(
        { orgId: access.org.id, orgName: access.org.name, email: access.principal.user.email, customerId: row?.customerId ?? null, subscriptionId: live ? row!.subscriptionId : null },
        plan,
        { successUrl: `${page}?checkout=success`, cancelUrl: `${page}?checkout=cancelled` },
      );
    } catch (error) {
      // A provider may have created the customer before failing (its error carries it): kept, so the next attempt reuses it.
      const created = (error as { customerId?: unknown }).customerId;
      if (typeof created === "string" && created !== "") recordCustomer(created);
      throw error;
    }
  });
  if (result.kind === "plan_changed") {
    const raised = capAfterPlanChange(row, result.plan);
    applyWrite(ctx, access.principal, {
      action: "billing.plan_change", targetType: "org", targetId: access.org.id, orgId: access.org.id,
      before: { plan: row?.plan ?? null, ...("spendCapMinor" in raised ? { spend_cap_minor: row!.spendCapMinor } : {}) },
      after: { plan: result.plan, proration: result.proration, ...("spendCapMinor" in raised ? { spend_cap_minor: raised.spendCapMinor } : {}) },
      apply: () => upsertBilling(ctx, access.org.id, defaults, { plan: result.plan, ...raised }),
    });
    await ctx.billing.evaluate(ctx, access.org.id, { fresh: true });
    return result;
  }
  if (result.customerId !== null) recordCustomer(result.customerId);
  return { kind: "redirect", url: result.url };
}

/** POST …/billing/portal: a hosted customer-portal session (409 before the organisation is a customer). */
export async function openPortal(ctx: ControlContext, access: OrgAccess): Promise<{ url: string }> {
  requireScope(access, billingWriteScope);
  const payments = requirePayments(ctx);
  const row = billingRow(ctx, access.org.id);
  if (!row?.customerId) throw conflict("the organisation is not a customer of the payment provider yet: start a checkout first");
  const { url } = await providerCall(() => payments.portal(row.customerId!, `${ctx.baseUrl()}/orgs/${access.org.id}/billing`));
  return { url };
}

/** A provider failure is the provider's being unavailable, not ours: 503 with its reason. */
async function providerCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    console.error("billing: the payment provider failed:", error);
    throw new ApiError(503, "unavailable", `the payment provider did not complete the request: ${String((error as Error).message ?? error).slice(0, 200)}`);
  }
}

/**
 * A change to a subscription other than the one on record, while that one is live, is ignored
 * unless the incoming one is live too (then it replaces it): a late, retried `deleted` of an
 * old subscription, or the second tab's abandoned checkout, must not leave the organisation on
 * default terms while its live subscription still bills. A change to the recorded subscription
 * always applies.
 */
function supersededChange(row: OrgBillingRow | null, change: SubscriptionChange): boolean {
  return hasLiveSubscription(row) && row!.subscriptionId !== change.subscriptionId && !liveSubscriptionStatuses.has(change.status);
}

/** Applies what a verified provider webhook says; false when it names no organisation of this deployment or is superseded (supersededChange). */
export async function applySubscriptionChange(ctx: ControlContext, change: SubscriptionChange): Promise<boolean> {
  if (!ctx.db.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, change.orgId)).get()) return false;
  const row = billingRow(ctx, change.orgId);
  if (supersededChange(row, change)) {
    console.error(`billing: subscription ${change.subscriptionId} of organisation ${change.orgId} is ${change.status}; ignored, the organisation's live subscription is ${row!.subscriptionId}`);
    return false;
  }
  const actor: Actor = { kind: "anonymous" };
  const changes: Partial<OrgBillingRow> = {
    customerId: change.customerId,
    subscriptionId: change.subscriptionId,
    subscriptionStatus: change.status,
    currentPeriodStart: change.currentPeriodStart,
    currentPeriodEnd: change.currentPeriodEnd,
    ...(change.plan === null ? {} : { plan: change.plan }),
    ...(liveSubscriptionStatuses.has(change.status) ? capAfterPlanChange(row, change.plan) : {}),
  };
  applyWrite(ctx, actor, {
    action: "billing.subscription", targetType: "org", targetId: change.orgId, orgId: change.orgId,
    before: row && { plan: row.plan, subscription_status: row.subscriptionStatus, current_period_end: row.currentPeriodEnd },
    after: {
      plan: change.plan ?? row?.plan ?? null, subscription_status: change.status, current_period_end: change.currentPeriodEnd,
      ...(changes.spendCapMinor === undefined ? {} : { spend_cap_minor: changes.spendCapMinor }),
    },
    apply: () => upsertBilling(ctx, change.orgId, { plan: change.plan ?? row?.plan ?? "starter" }, changes),
  });
  await ctx.billing.evaluate(ctx, change.orgId, { fresh: true });
  return true;
}
