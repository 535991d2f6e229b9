// The keep ratio's arithmetic (server/control/billing/keep-ratio.ts) and the plans' invoice
// (plans.ts) at their edges.
import { describe, expect, test } from "bun:test";
import { keepRatioMin, keepRatioStep, keepRatioWithin } from "../../../server/control/billing/keep-ratio.ts";
import { invoiceMinor, overageMinor, paidPlanTerms } from "../../../server/control/billing/plans.ts";

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
