// Insight semantics pinned on small datasets whose answers are worked out by hand here.
import { describe, expect, test } from "bun:test";
import { day, event, handRunner, hour } from "./hand-run.ts";

const run = handRunner();

describe("trends", () => {
  test("days follow the project's zone across a DST change (Paris, 25 October 2026 has 25 hours)", async () => {
    const events = [
      event(0, "a", Date.parse("2026-10-24T22:30:00Z")), // 00:30 on the 25th, summer time
      event(0, "a", Date.parse("2026-10-25T22:30:00Z")), // 23:30 on the 25th, winter time
      event(0, "a", Date.parse("2026-10-25T23:30:00Z")), // 00:30 on the 26th
    ];
    const daily = await run(events, { ir_version: 1, date_range: { from: "2026-10-25", to: "2026-10-26" }, insight: { kind: "trends", series: [{ event: "a" }] } }, "Europe/Paris");
    expect([daily.buckets, daily.rows[0].values]).toEqual([["2026-10-25", "2026-10-26"], [2, 1]]);
  });

  test("the repeated hour of a DST change is one bucket holding both hours' events", async () => {
    const events = [event(0, "a", Date.parse("2026-10-25T00:30:00Z")), event(0, "a", Date.parse("2026-10-25T01:30:00Z"))];
    const hourly = await run(events, {
      ir_version: 1, date_range: { from: "2026-10-25T01:00:00+02:00", to: "2026-10-25T04:00:00+01:00" }, insight: { kind: "trends", interval: "hour", series: [{ event: "a" }] },
    }, "Europe/Paris");
    expect(hourly.buckets).toEqual(["2026-10-25T01:00", "2026-10-25T02:00", "2026-10-25T03:00"]);
    expect(hourly.rows[0].values).toEqual([0, 2, 0]);
  });

  test("sampled events count 1 / sample rate; unique persons are not weighted; merged persons count once", async () => {
    const at = Date.parse("2026-11-02T10:00:00Z");
    const events = [event(0, "a", at, { sample_rate: 0.25 }), event(1, "a", at, { sample_rate: 0.25 }), event(2, "a", at)];
    // Person 1 was merged into person 0.
    const result = await run(events, {
      ir_version: 1, date_range: { from: "2026-11-02", to: "2026-11-02" }, insight: { kind: "trends", series: [{ event: "a" }, { event: "a", math: "unique_persons" }] },
    }, "UTC", { canonical: Int32Array.from([0, 0, 2]) });
    expect(result.rows.map((row: any) => row.total)).toEqual([9, 2]);
  });

  test("an event with an overflowing weight (a client's $sample_rate of 1e-320) leaves the other events' series as they are", async () => {
    const at = Date.parse("2026-11-02T10:00:00Z");
    const events = [event(0, "a", at), event(1, "b", at, { sample_rate: 1e-320 }), event(2, "a", at, { sample_rate: 0.5 })];
    const result = await run(events, {
      ir_version: 1, date_range: { from: "2026-11-02", to: "2026-11-02" },
      insight: { kind: "trends", series: [{ event: "a" }, { event: "b" }], breakdown: { type: "event", property: "$browser" } },
    });
    expect(result.rows.map((row: any) => [row.event, row.breakdown_value, row.total, row.values])).toEqual([
      ["a", null, 3, [3]],
      ["b", null, Infinity, [Infinity]],
    ]);
  });

  test("neq keeps events without the property; eq compares text, so 5 matches \"5\"", async () => {
    const at = Date.parse("2026-11-02T10:00:00Z");
    const events = [
      event(0, "a", at, { properties: { browser: "Chrome", size: 5 } }),
      event(0, "a", at, { properties: { browser: "Firefox", size: "5" } }),
      event(0, "a", at, { properties: {} }),
    ];
    const ir = (filters: unknown[]) => ({ ir_version: 1, date_range: { from: "2026-11-02", to: "2026-11-02" }, filters, insight: { kind: "trends", series: [{ event: "a" }] } });
    expect((await run(events, ir([{ type: "event", key: "browser", operator: "neq", value: "Chrome" }]))).rows[0].total).toBe(2);
    expect((await run(events, ir([{ type: "event", key: "size", operator: "eq", value: 5 }]))).rows[0].total).toBe(2);
    expect((await run(events, ir([{ type: "event", key: "size", operator: "gt", value: 4.5 }]))).rows[0].total).toBe(2);
    expect((await run(events, ir([{ type: "event", key: "browser", operator: "contains", value: "FIRE" }]))).rows[0].total).toBe(1);
  });
});

describe("funnels (steps a -> b -> c, starting 2026-10-20 00:00 UTC)", () => {
  const t0 = Date.parse("2026-10-20T00:00:00Z");
  const events = [
    ...[["a", 0], ["b", 1], ["c", 2]].map(([name, h]) => event(0, name as string, t0 + (h as number) * hour)),
    ...[["a", 0], ["c", 1], ["b", 2]].map(([name, h]) => event(1, name as string, t0 + (h as number) * hour)),
    event(2, "a", t0), event(2, "b", t0 + 15 * day),
    event(3, "b", t0), event(3, "a", t0 + hour),
    event(4, "a", t0), event(4, "x", t0 + hour / 2), event(4, "b", t0 + hour),
    event(5, "a", t0), event(5, "a", t0 + 10 * hour), event(5, "b", t0 + 10.5 * hour),
  ];
  const ir = (insight: Record<string, unknown>) => ({
    ir_version: 1, date_range: { from: "2026-10-19", to: "2026-11-10" }, insight: { kind: "funnel", series: [{ event: "a" }, { event: "b" }, { event: "c" }], ...insight },
  });
  const counts = (result: any) => result.steps.map((step: any) => step.count);

  test("ordered, 14-day window: counts, conversions and times to convert", async () => {
    const result = await run(events, ir({}));
    expect(result).toEqual({
      kind: "funnel",
      order: "ordered",
      window_seconds: 14 * 86_400,
      steps: [
        { step: 0, event: "a", count: 6, conversion_from_previous: null, conversion_from_first: null, median_seconds: null, average_seconds: null },
        { step: 1, event: "b", count: 4, conversion_from_previous: 4 / 6, conversion_from_first: 4 / 6, median_seconds: 5400, average_seconds: 13050 },
        { step: 2, event: "c", count: 1, conversion_from_previous: 1 / 4, conversion_from_first: 1 / 6, median_seconds: 3600, average_seconds: 3600 },
      ],
    });
  });

  test("a 2-hour window: person 5 converts from its second start, 30 minutes", async () => {
    const result = await run(events, ir({ funnel_window: { value: 2, unit: "hour" } }));
    expect(counts(result)).toEqual([6, 4, 1]);
    expect([result.steps[1].median_seconds, result.steps[1].average_seconds]).toEqual([3600, 4050]);
  });

  test("strict: any other event between two steps breaks the chain", async () => {
    expect(counts(await run(events, ir({ funnel_order: "strict" })))).toEqual([6, 2, 1]);
  });

  test("unordered: steps in any order within the window", async () => {
    expect(counts(await run(events, ir({ funnel_order: "unordered" })))).toEqual([6, 5, 2]);
  });

  test("an exclusion event between steps 0 and 1 drops the person", async () => {
    expect(counts(await run(events, ir({ exclusions: [{ event: "x", from_step: 0, to_step: 1 }] })))).toEqual([5, 3, 1]);
  });
});

describe("stickiness", () => {
  test("persons by the number of distinct days they did the event, exactly and cumulative", async () => {
    const t0 = Date.parse("2026-11-02T10:00:00Z");
    // Person 0 on 3 days (twice on the first), person 1 on 1 day, person 2 on 2 days.
    const events = [
      event(0, "a", t0), event(0, "a", t0 + hour), event(0, "a", t0 + day), event(0, "a", t0 + 2 * day),
      event(1, "a", t0), event(1, "b", t0 + day),
      event(2, "a", t0 + day), event(2, "a", t0 + 3 * day),
    ];
    const ir = (cumulative: boolean) => ({
      ir_version: 1, date_range: { from: "2026-11-02", to: "2026-11-05" }, insight: { kind: "stickiness", series: [{ event: "a" }], cumulative },
    });
    expect(await run(events, ir(false))).toEqual({
      kind: "stickiness", interval: "day", time_zone: "UTC", cumulative: false, intervals: [1, 2, 3, 4], persons: [1, 1, 1, 0],
    });
    expect((await run(events, ir(true))).persons).toEqual([3, 2, 1, 0]);
  });
});
