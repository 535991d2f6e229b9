// Retention, lifecycle, paths and revenue pinned on small datasets worked out by hand here.
import { describe, expect, test } from "bun:test";
import { event, handRunner } from "./hand-run.ts";

const run = handRunner();
const at = (date: string, time = "10:00") => Date.parse(`${date}T${time}:00Z`);

describe("retention (UTC days 2026-10-20 .. 23, 3 periods)", () => {
  const events = [
    event(0, "a", at("2026-10-20")), event(0, "a", at("2026-10-21")), event(0, "a", at("2026-10-23")),
    event(1, "a", at("2026-10-21")), event(1, "a", at("2026-10-22")),
    event(2, "a", at("2026-10-19")), event(2, "a", at("2026-10-21")), event(2, "a", at("2026-10-22")),
    event(0, "b", at("2026-10-22")), event(1, "b", at("2026-10-21", "18:00")),
  ];
  const ir = (insight: Record<string, unknown>) => ({
    ir_version: 1, date_range: { from: "2026-10-20", to: "2026-10-23" }, insight: { kind: "retention", periods: 3, ...insight },
  });
  const result = (retention_type: string, cohorts: [string, number, number[]][]) => ({
    kind: "retention", interval: "day", time_zone: "UTC", retention_type, periods: 3,
    cohorts: cohorts.map(([cohort, size, values]) => ({ cohort, size, values })),
  });

  test("recurring: a person joins the cohort of every day they did the start event; later cohorts have fewer periods", async () => {
    expect(await run(events, ir({ series: [{ event: "a" }] }))).toEqual(result("recurring", [
      ["2026-10-20", 1, [1, 1, 0]],
      ["2026-10-21", 3, [3, 2, 1]],
      ["2026-10-22", 2, [2, 0]],
      ["2026-10-23", 1, [1]],
    ]));
  });

  test("first_time: only the first-ever start event places a person (person 2 started before the range: no cohort)", async () => {
    expect(await run(events, ir({ series: [{ event: "a" }], retention_type: "first_time" }))).toEqual(result("first_time", [
      ["2026-10-20", 1, [1, 1, 0]],
      ["2026-10-21", 1, [1, 1, 0]],
      ["2026-10-22", 0, [0, 0]],
      ["2026-10-23", 0, [0]],
    ]));
  });

  test("a return event of its own: period k counts the cohort's persons who did it k days later (0: the same day)", async () => {
    expect(await run(events, ir({ series: [{ event: "a" }, { event: "b" }] }))).toEqual(result("recurring", [
      ["2026-10-20", 1, [0, 0, 1]],
      ["2026-10-21", 3, [1, 1, 0]],
      ["2026-10-22", 2, [0, 0]],
      ["2026-10-23", 1, [0]],
    ]));
  });
});

describe("lifecycle (UTC days 2026-10-20 .. 22; the 19th is the previous day)", () => {
  test("new, returning, resurrecting and dormant (negative)", async () => {
    const events = [
      event(0, "a", at("2026-10-19")), event(0, "a", at("2026-10-20")), event(0, "a", at("2026-10-22")),
      event(1, "a", at("2026-10-20", "09:00")), event(1, "a", at("2026-10-21")),
      event(2, "a", at("2026-10-21")),
      event(3, "a", at("2026-10-19")),
    ];
    const created = Float64Array.from([at("2026-10-10"), at("2026-10-20", "08:00"), at("2026-10-01"), at("2026-10-18")]);
    const result = await run(events, { ir_version: 1, date_range: { from: "2026-10-20", to: "2026-10-22" }, insight: { kind: "lifecycle", series: [{ event: "a" }] } }, "UTC", { created });
    expect(result).toEqual({
      kind: "lifecycle", interval: "day", time_zone: "UTC", buckets: ["2026-10-20", "2026-10-21", "2026-10-22"],
      rows: [
        { status: "new", values: [1, 0, 0] },
        { status: "returning", values: [1, 1, 0] },
        { status: "resurrecting", values: [0, 1, 1] },
        { status: "dormant", values: [-1, -1, -2] },
      ],
    });
  });
});

describe("lifecycle across the skipped hour (Paris, 29 March 2026: 02:00 becomes 03:00)", () => {
  test("the interval before 03:00 is 01:00, so a person active at 01:30 and 03:30 is returning", async () => {
    const events = [event(0, "a", Date.parse("2026-03-29T00:30:00Z")), event(0, "a", Date.parse("2026-03-29T01:30:00Z"))];
    const result = await run(events, {
      ir_version: 1, date_range: { from: "2026-03-29T03:00:00+02:00", to: "2026-03-29T04:00:00+02:00" }, insight: { kind: "lifecycle", interval: "hour", series: [{ event: "a" }] },
    }, "Europe/Paris", { created: Float64Array.from([Date.parse("2026-01-01T00:00:00Z")]) });
    expect([result.buckets, result.rows.map((row: any) => row.values)]).toEqual([["2026-03-29T03:00"], [[0], [1], [0], [0]]]);
  });
});

describe("paths (UTC, 2026-10-20)", () => {
  const events = [
    event(0, "$pageview", at("2026-10-20", "10:00"), { properties: { $current_url: "https://x.com/" } }),
    event(0, "$pageview", at("2026-10-20", "10:05"), { properties: { $current_url: "https://x.com/pricing?a=1" } }),
    event(0, "$pageview", at("2026-10-20", "10:06"), { properties: { $current_url: "https://x.com/pricing" } }), // a reload
    event(0, "clicked", at("2026-10-20", "10:10")),
    // 50 minutes later: a new session.
    event(0, "$pageview", at("2026-10-20", "11:00"), { properties: { $pathname: "/docs", $current_url: "https://x.com/ignored" } }),
    event(0, "purchase", at("2026-10-20", "11:01")),
    event(1, "$pageview", at("2026-10-20", "09:00"), { properties: { $current_url: "https://x.com" } }),
    event(1, "$pageview", at("2026-10-20", "09:01"), { properties: { $current_url: "https://x.com/pricing#plans" } }),
    event(1, "signed_up", at("2026-10-20", "09:02")),
    event(2, "$screen", at("2026-10-20", "12:00"), { properties: { $screen_name: "Home" } }),
    event(2, "$screen", at("2026-10-20", "12:01")),
  ];
  const ir = (insight: Record<string, unknown> = {}) => ({ ir_version: 1, date_range: { from: "2026-10-20", to: "2026-10-20" }, insight: { kind: "paths", ...insight } });
  const edge = (source_step: number, source: string, target: string, persons: number) => ({ source_step, source, target_step: source_step + 1, target, persons });

  test("URL paths, screen names, 30-minute sessions, reloads as one step; most persons first, then step, source, target", async () => {
    expect(await run(events, ir())).toEqual({
      kind: "paths",
      edges: [
        edge(1, "/", "/pricing", 2),
        edge(1, "/docs", "purchase", 1),
        edge(1, "Home", "$screen", 1),
        edge(2, "/pricing", "clicked", 1),
        edge(2, "/pricing", "signed_up", 1),
      ],
    });
  });

  test("start point, end point, excluded events, depth and the edge limit", async () => {
    expect((await run(events, ir({ start_point: "/pricing" }))).edges).toEqual([edge(1, "/pricing", "clicked", 1), edge(1, "/pricing", "signed_up", 1)]);
    expect((await run(events, ir({ end_point: "purchase" }))).edges).toEqual([edge(1, "/docs", "purchase", 1)]);
    expect((await run(events, ir({ start_point: "/", end_point: "signed_up", depth: 2 }))).edges).toEqual([]);
    expect((await run(events, ir({ start_point: "/", end_point: "signed_up", depth: 3 }))).edges).toEqual([edge(1, "/", "/pricing", 1), edge(2, "/pricing", "signed_up", 1)]);
    expect((await run(events, ir({ exclude_events: ["clicked", "$screen"] }))).edges).toEqual([
      edge(1, "/", "/pricing", 2), edge(1, "/docs", "purchase", 1), edge(2, "/pricing", "signed_up", 1),
    ]);
    expect((await run(events, ir({ depth: 2, edges: 2 }))).edges).toEqual([edge(1, "/", "/pricing", 2), edge(1, "/docs", "purchase", 1)]);
    expect((await run(events, ir({ series: [{ event: "$pageview" }] }))).edges).toEqual([edge(1, "/", "/pricing", 2)]);
  });
});

describe("revenue (UTC days 2026-10-20 .. 21)", () => {
  test("integer minor units per currency; refunds negative; sampled amounts weighted; fractional amounts left out", async () => {
    const events = [
      event(0, "purchase", at("2026-10-20"), { properties: { amount: 1999, currency: "eur" } }),
      event(1, "purchase", at("2026-10-21"), { properties: { amount: 500, currency: "EUR" }, sample_rate: 0.5 }),
      event(1, "purchase", at("2026-10-21"), { properties: { amount: 12.5, currency: "EUR" } }),
      event(2, "purchase", at("2026-10-20"), { properties: { amount: "300", currency: "USD" } }),
      event(0, "refund", at("2026-10-21"), { properties: { amount: 999, currency: "EUR" } }),
      event(3, "purchase", at("2026-10-20"), { properties: { amount: 100 } }),
    ];
    const result = await run(events, {
      ir_version: 1, date_range: { from: "2026-10-20", to: "2026-10-21" },
      insight: { kind: "revenue", series: [{ event: "purchase" }, { event: "refund", refund: true }] },
    });
    expect(result).toEqual({
      kind: "revenue", interval: "day", time_zone: "UTC", buckets: ["2026-10-20", "2026-10-21"],
      rows: [
        { currency: "EUR", values: [1999, 1], total: 2000 },
        { currency: "USD", values: [300, 0], total: 300 },
        { currency: null, values: [100, 0], total: 100 },
      ],
    });
  });
});
