// Skipping parts by their footers: a query answers the same whether it reads every part of its
// range or only those whose statistics and listed events may hold its rows, over data of
// several days and parts where some events are rare; and it opens fewer parts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChunkStore, snapshotChunks, type ChunkRef } from "../../../engine/chunk-store.ts";
import type { Decoded, TextColumn } from "../../../engine/columns.ts";
import { executeQuery } from "../../../engine/execute.ts";
import { validateQuery } from "../../../engine/ir/validate.ts";
import { rowGroupMayHold } from "../../../engine/parquet/row-group-pruning.ts";
import { partSummary } from "../../../engine/parquet/row-group-summary.ts";
import { eventsRead } from "../../../engine/read-scope.ts";
import type { QuerySource } from "../../../engine/query-data.ts";
import { EventStore, type StorageTuning } from "../../../storage/event-store.ts";
import type { StoredEvent } from "../../../storage/event-record.ts";
import { buildDataset, dataId, environment, seededRandom } from "../dataset.ts";
import {
  randomFunnelIr, randomLifecycleIr, randomPathsIr, randomRetentionIr, randomRevenueIr, randomStickinessIr, randomTrendsIr,
} from "../random-ir.ts";

const zone = "Europe/Paris";
const now = Date.parse("2026-11-21T12:00:00Z");
const limits = { rowsMax: 500_000_000, deadline: Number.MAX_SAFE_INTEGER };
const start = Date.parse("2026-10-20T00:00:00Z");
const dayMs = 86_400_000;
const queriesPerKind = 60;

/** A ChunkStore that records which chunks a query read columns of. */
class CountingStore extends ChunkStore {
  readonly opened = new Set<string>();
  override async columns(ref: ChunkRef, names: string[]): Promise<Map<string, Decoded>> {
    this.opened.add(ref.id);
    return super.columns(ref, names);
  }
}

/** Rows written per flush, and the most a part holds: a day of these events spans several parts, each some hours of it. */
const flushRows = 250;
const tuning: StorageTuning = {
  sealRows: 1 << 30, sealBytes: 1 << 30, sealCells: 1 << 30, sealAgeMs: 1 << 30, compactRows: flushRows, compactAgeMs: 1 << 30,
  compactBacklogRows: 1 << 30, partRowsMax: 600, partBytesMax: 2 ** 31,
};

/** The events written through the storage path in arrival (time) order, a flush at a time. */
async function storedData(events: StoredEvent[], persons: Omit<QuerySource["persons"], "propertyValues" | "cohortMembers"> & { personValues: Map<string, Map<number, unknown>> }) {
  const dataDir = mkdtempSync(join(tmpdir(), "pruning-"));
  const store = EventStore.open(dataDir, join(dataDir, "wal"), () => {}, tuning);
  for (let at = 0; at < events.length; at += flushRows) {
    store.addRows("p", dataId, environment, events.slice(at, at + flushRows), { file: 0, offset: at });
    await store.flush();
  }
  const personSource = { canonical: persons.canonical, createdTimes: persons.createdTimes, propertyValues: (key: string) => persons.personValues.get(key) ?? new Map(), cohortMembers: () => null };
  return {
    source: (chunkStore = new ChunkStore()): QuerySource => ({ store: chunkStore, chunks: snapshotChunks(store.snapshot(dataId, environment), dataDir), persons: personSource }),
    close: async () => {
      await store.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let dataset: Awaited<ReturnType<typeof storedData>>;

beforeAll(async () => {
  // The random IR's events, "purchase" kept only on two days and "signed_up" on one, so most
  // parts lack them; stored in time order (as events arrive), so parts of a day hold parts of it.
  const base = await buildDataset({ seed: 7, persons: 300, events: 24_000, start, days: 11 });
  const events = base.events.map((event) => {
    const day = Math.floor((event.timestamp - start) / dayMs);
    if (event.event === "purchase" && day !== 2 && day !== 8) return { ...event, event: "page_viewed" };
    if (event.event === "signed_up" && day !== 5) return { ...event, event: "clicked" };
    return event;
  }).sort((a, b) => a.timestamp - b.timestamp);
  const { canonical, personValues, created } = base;
  await base.close();
  dataset = await storedData(events, { canonical, personValues, createdTimes: () => created });
});

afterAll(() => dataset.close());

async function run(document: Record<string, unknown>, readEveryPart: boolean) {
  const store = new CountingStore();
  const query = validateQuery(document, zone, now);
  const { result } = await executeQuery(query, dataset.source(store), { ...limits, readEveryPart });
  return { result, opened: store.opened.size };
}

const generators = {
  trends: randomTrendsIr, funnel: randomFunnelIr, stickiness: randomStickinessIr, retention: randomRetentionIr,
  lifecycle: randomLifecycleIr, revenue: randomRevenueIr, paths: randomPathsIr,
};

describe("row-group pruning", () => {
  test("the data spans several parts a day, and some parts lack the rare events", () => {
    const parts = dataset.source().chunks.filter((ref) => ref.kind === "part");
    const days = new Set(parts.map((ref) => (ref as { day: string }).day));
    const withPurchase = parts.filter((ref) => partSummary((ref as { path: string }).path)!.rowGroups.some((group) => group.events!.has("purchase")));
    expect([days.size, parts.length > 2 * days.size, withPurchase.length > 0, withPurchase.length < parts.length / 3]).toEqual([11, true, true, true]);
  });

  for (const [kind, generate] of Object.entries(generators)) {
    test(`${kind}: random queries answer the same pruned and unpruned, and pruning skips parts`, async () => {
      const random = seededRandom(kind.length * 101);
      let skipped = 0;
      for (let i = 0; i < queriesPerKind; i++) {
        const document = generate(random);
        const pruned = await run(document, false);
        const unpruned = await run(document, true);
        expect({ document, result: pruned.result }).toEqual({ document, result: unpruned.result });
        expect(pruned.opened).toBeLessThanOrEqual(unpruned.opened);
        skipped += unpruned.opened - pruned.opened;
      }
      expect(skipped).toBeGreaterThan(0);
    });
  }

  test("a query on a rare event opens exactly the parts holding it; one on an event no part holds opens none", async () => {
    const parts = dataset.source().chunks.filter((ref) => ref.kind === "part");
    // Which parts hold "purchase", from their decoded event column (not from the footer).
    const store = new ChunkStore();
    let holding = 0;
    for (const ref of parts) {
      const events = (await store.columns(ref, ["event"])).get("event") as TextColumn;
      const code = events.words.indexOf("purchase");
      if (code >= 0 && events.codes.includes(code)) holding++;
    }
    const trendsOf = (event: string) => ({
      ir_version: 1, date_range: { from: "2026-10-19", to: "2026-11-03" }, filters: [], insight: { kind: "trends", interval: "day", series: [{ event, math: "total" }] },
    });
    expect([(await run(trendsOf("purchase"), false)).opened, (await run(trendsOf("never_sent"), false)).opened, (await run(trendsOf("purchase"), true)).opened])
      .toEqual([holding, 0, parts.length]);
    expect(holding).toBeLessThan(parts.length / 3);
  });

  test("a strict funnel reads every part: other events between two steps break the chain", async () => {
    const document = {
      ir_version: 1, date_range: { from: "2026-10-19", to: "2026-11-03" }, filters: [],
      insight: { kind: "funnel", series: [{ event: "purchase" }, { event: "signed_up" }], funnel_order: "strict", funnel_window: { value: 14, unit: "day" } },
    };
    const ordered = { ...document, insight: { ...document.insight, funnel_order: "ordered" } };
    const [pruned, unpruned, orderedPruned] = [await run(document, false), await run(document, true), await run(ordered, false)];
    expect([pruned.result, pruned.opened]).toEqual([unpruned.result, unpruned.opened]);
    // The ordered funnel skips the parts without either step, and converts persons the strict one does not.
    expect(orderedPruned.opened).toBeLessThan(unpruned.opened);
    const converted = (result: unknown) => (result as { steps: { count: number }[] }).steps[1]!.count;
    expect(converted(orderedPruned.result)).toBeGreaterThan(converted(unpruned.result));
  });

  test("a one-hour range opens only parts whose timestamps meet it", async () => {
    const parts = dataset.source().chunks.filter((ref) => ref.kind === "part");
    const [from, to] = [Date.parse("2026-10-24T13:00:00Z"), Date.parse("2026-10-24T14:00:00Z")];
    const store = new ChunkStore();
    let meeting = 0;
    for (const ref of parts) {
      const times = (await store.columns(ref, ["timestamp"])).get("timestamp") as Float64Array;
      if (times.some((at) => at >= from && at < to)) meeting++;
    }
    const document = {
      ir_version: 1, date_range: { from: "2026-10-24T13:00:00Z", to: "2026-10-24T14:00:00Z" }, filters: [],
      insight: { kind: "trends", interval: "hour", series: [{ event: null, math: "total" }] },
    };
    const [pruned, unpruned] = [await run(document, false), await run(document, true)];
    expect([pruned.result, pruned.opened]).toEqual([unpruned.result, meeting]);
    expect(meeting).toBeLessThan(unpruned.opened);
  });

  test("events a query reads: none named where any event counts", () => {
    const query = (insight: Record<string, unknown>) => validateQuery({ ir_version: 1, date_range: { from: "2026-10-19", to: "2026-10-25" }, filters: [], insight }, zone, now);
    const named = (insight: Record<string, unknown>) => {
      const events = eventsRead(query(insight));
      return events === null ? null : [...events].sort();
    };
    const steps = [{ event: "a" }, { event: "b" }];
    expect([
      named({ kind: "trends", interval: "day", series: [{ event: "a", math: "total" }, { event: "b", math: "unique_persons" }] }),
      named({ kind: "trends", interval: "day", series: [{ event: "a", math: "total" }, { event: null, math: "total" }] }),
      named({ kind: "funnel", series: steps, funnel_order: "ordered", exclusions: [{ event: "x", from_step: 0, to_step: 1 }] }),
      named({ kind: "funnel", series: steps, funnel_order: "strict" }),
      named({ kind: "paths" }),
      named({ kind: "paths", series: [{ event: "a" }] }),
      named({ kind: "retention", interval: "day", series: steps, retention_type: "first_time" }),
      named({ kind: "lifecycle", interval: "day", series: [{ event: null }] }),
    ]).toEqual([["a", "b"], null, ["a", "b", "x"], null, null, ["a"], ["a", "b"], null]);
  });

  test("a row group may hold rows unless its statistics or listed events rule them out", () => {
    const group = { rows: 10, times: { min: 100, max: 200 }, events: new Set(["a", "b"]) };
    const scope = (from: number, to: number, events: string[] | null) => ({ from, to, events: events && new Set(events) });
    expect([
      rowGroupMayHold(group, scope(0, 100, null)),
      rowGroupMayHold(group, scope(0, 101, null)),
      rowGroupMayHold(group, scope(200, 300, null)),
      rowGroupMayHold(group, scope(201, 300, null)),
      rowGroupMayHold(group, scope(0, 300, ["c"])),
      rowGroupMayHold(group, scope(0, 300, ["c", "b"])),
      rowGroupMayHold({ ...group, events: null }, scope(0, 300, ["c"])),
      rowGroupMayHold({ ...group, times: null }, scope(500, 600, ["a"])),
      rowGroupMayHold({ ...group, rows: 0 }, scope(0, 300, null)),
    ]).toEqual([false, true, true, false, false, true, true, true, false]);
  });
});
