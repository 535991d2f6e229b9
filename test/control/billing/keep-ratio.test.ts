// The keep ratio's arithmetic (server/control/billing/keep-ratio.ts), the plans' invoice
// (plans.ts), and the evaluation's projection and cap minimum at their edges.
import { describe, expect, test } from "bun:test";
import { keepRatioMin, keepRatioStep, keepRatioWithin } from "../../../server/control/billing/keep-ratio.ts";
import { invoiceMinor, overageMinor, paidPlanTerms } from "../../../server/control/billing/plans.ts";
import { evaluateUsage } from "../../../server/control/billing/spend-cap-enforcer.ts";
import { spendCapMinMinor } from "../../../server/control/billing/billing-overview.ts";

const starter = paidPlanTerms.starter;
const none = { events: 0, replayRecordings: 0 };

describe("invoice", () => {
  test("overage starts one unit past the included volume and drops fractions of a cent", () => {
    expect(overageMinor(starter.events, 1_000_000)).toBe(0);
    expect(overageMinor(starter.events, 1_000_199)).toBe(0);
    expect(overageMinor(starter.events, 1_000_200)).toBe(1);
    expect(overageMinor(starter.events, 2_000_000)).toBe(5_000);
    expect(invoiceMinor(starter, { events: 2_000_000, replayRecordings: 6_000 })).toBe(2_900 + 5_000 + 500);
  });
});

describe("keepRatioWithin", () => {
  test("1 while keeping everything stays within the cap, to the cent", () => {
    // 1,000,000 included + 200 events per cent of overage: a cap of price + 1 affords 1,000,200 events.
    const forecast = { stored: none, arriving: { events: 1_000_200, replayRecordings: 0 } };
    expect(keepRatioWithin(starter, 2_901, forecast)).toBe(1);
    expect(keepRatioWithin(starter, 2_900, forecast)).toBe(0.999);
  });

  test("the share of arrivals the remaining allowance affords, rounded down to the step", () => {
    const forecast = { stored: { events: 200_000, replayRecordings: 0 }, arriving: { events: 3_200_000, replayRecordings: 0 } };
    // 800,000 events left in the price: 0.25 of the arrivals.
    expect(keepRatioWithin(starter, 2_900, forecast)).toBe(0.25);
    // 10,000 cents more affords 2,000,000 more events: 2,800,000 / 3,200,000 = 0.875.
    expect(keepRatioWithin(starter, 12_900, forecast)).toBe(0.875);
    expect(keepRatioStep).toBe(0.001);
  });

  test("recordings' overage shares the cap with events'", () => {
    const forecast = { stored: { events: 0, replayRecordings: 5_000 }, arriving: { events: 1_000_000, replayRecordings: 2_000 } };
    // Keeping k: events within the included volume, recordings 2,000 k over it at 0.5 cent each: 1,000 k cents.
    expect(keepRatioWithin(starter, 2_900 + 500, forecast)).toBe(0.5);
  });

  test("never below keepRatioMin, even when the cap is already spent", () => {
    const forecast = { stored: { events: 5_000_000, replayRecordings: 0 }, arriving: { events: 1_000_000, replayRecordings: 0 } };
    expect(keepRatioWithin(starter, 2_900, forecast)).toBe(keepRatioMin);
  });
});

describe("evaluateUsage and the cap's minimum", () => {
  const period = { startMs: Date.UTC(2026, 10, 1), endMs: Date.UTC(2026, 11, 1), source: "calendar_month" as const };
  const account = (cap: number | null) => ({
    orgId: "o1", planName: "starter" as const, plan: starter, period,
    row: { orgId: "o1", plan: "starter" as const, spendCapMinor: cap, customerId: null, subscriptionId: null, subscriptionStatus: null, currentPeriodStart: null, currentPeriodEnd: null, updatedAt: "" },
  });
  const usage = (received: number, stored: number) => ({ eventsReceived: received, eventsStored: stored, replayRecordings: 0, unreachableRegions: [], readAtMs: 0 });
  /** Half-way through the month. */
  const halfway = period.startMs + (period.endMs - period.startMs) / 2;

  test("the minimum is the price plus the overage already billed (from stored events)", () => {
    const evaluation = evaluateUsage(account(null), usage(3_000_000, 2_000_000), halfway, 1);
    expect(spendCapMinMinor(evaluation)).toBe(2_900 + 5_000);
    expect(evaluation.currentInvoiceMinor).toBe(2_900 + 5_000);
    // No cap: everything kept; 3,000,000 received in half the month, so 3,000,000 more arrive: 5,000,000 stored at the end.
    expect([evaluation.keepRatio, evaluation.projectedInvoiceMinor]).toEqual([1, 2_900 + 20_000]);
  });

  test("with a cap, the projection keeps k of the arrivals and stays within it", () => {
    // 2,000,000 stored, 3,000,000 arriving; a cap of 2,900 + 10,000 affords 3,000,000 events: k = 1/3, rounded down.
    const evaluation = evaluateUsage(account(12_900), usage(3_000_000, 2_000_000), halfway, 1);
    expect(evaluation.keepRatio).toBe(0.333);
    expect(evaluation.projectedInvoiceMinor).toBeLessThanOrEqual(12_900);
  });

  test("in a period's first hour the rate is taken over an hour (projectionElapsedMinMs)", () => {
    const early = evaluateUsage(account(null), usage(1_000, 1_000), period.startMs + 60_000, 1);
    const remainingHours = (period.endMs - period.startMs - 60_000) / 3_600_000;
    expect(early.projectedInvoiceMinor).toBe(invoiceMinor(starter, { events: 1_000 + 1_000 * remainingHours, replayRecordings: 0 }));
  });

  test("the self-hosted plan has no minimum, no invoice, and keeps everything", () => {
    const evaluation = evaluateUsage({ ...account(5_000), plan: null, planName: "self_hosted" }, usage(9_000_000, 9_000_000), halfway, 1);
    expect([spendCapMinMinor(evaluation), evaluation.currentInvoiceMinor, evaluation.projectedInvoiceMinor, evaluation.keepRatio]).toEqual([null, 0, 0, 1]);
  });
});
