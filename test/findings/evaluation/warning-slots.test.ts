// The per-quarter-hour ingestion warning counts findings rules read: counted by reason, summed
// over any span of whole quarters (a local hour in a zone with a half-hour offset too), the
// pending ones included, and deleted past warningSlotDaysKept days.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RegionStore, type RegistryKey } from "../../../storage/region-store.ts";
import { warningSlotDaysKept, warningSlotMs } from "../../../storage/ingestion-warning-store.ts";
import { IngestionWarnings } from "../../../server/ingest/ingestion-warnings.ts";

const dayMs = 86_400_000;
let dir: string;
let store: RegionStore;
let warnings: IngestionWarnings;
const key = { projectId: "p1", environment: "production" } as RegistryKey;
const invalid = { reason: "invalid", message: "properties must be a JSON object" } as const;
const skew = { reason: "clock_skew", message: "timestamp is too far from sent_at" } as const;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "warning-slots-"));
  store = new RegionStore(join(dir, "region.sqlite"));
  warnings = new IngestionWarnings(store.ingestionWarnings, { region: "eu", catalogPii: () => new Set(), pseudonymKey: () => new Uint8Array(32), log: () => {}, flushIntervalMs: 3_600_000, logIntervalMs: 3_600_000 });
});
afterEach(() => {
  warnings.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

test("counts per reason over whole quarters, pending ones included", () => {
  // 18:30 UTC is midnight in Asia/Kolkata: a local hour there is 18:30-19:30 UTC.
  const start = Date.parse("2026-11-23T18:30:00Z");
  warnings.record(key, invalid, {}, start - 1);
  warnings.record(key, invalid, {}, start);
  warnings.record(key, invalid, {}, start + 59 * 60_000);
  warnings.record(key, skew, {}, start + 30 * 60_000);
  warnings.record(key, invalid, {}, start + 60 * 60_000);
  warnings.record({ ...key, environment: "staging" } as RegistryKey, invalid, {}, start);
  warnings.record({ ...key, projectId: "p2" } as RegistryKey, invalid, {}, start);
  const hour = (reason: string | null) => warnings.countBetween("p1", "production", reason, start, start + 60 * 60_000);
  expect([hour("invalid"), hour("clock_skew"), hour(null), hour("duplicate")]).toEqual([2, 1, 3, 0]);
  expect(warnings.countBetween("p1", "production", null, start - warningSlotMs, start)).toBe(1);
  // Written once: counting again flushes nothing twice.
  expect(hour(null)).toBe(3);
});

test("slots older than warningSlotDaysKept days are deleted with the daily rows", () => {
  // Now: counting flushes (and prunes) at the clock's time.
  const now = Date.now();
  const oldest = now - warningSlotDaysKept * dayMs;
  warnings.record(key, invalid, {}, oldest - warningSlotMs);
  warnings.record(key, invalid, {}, oldest + warningSlotMs);
  warnings.flush(now);
  expect(warnings.countBetween("p1", "production", null, oldest - dayMs, now)).toBe(1);
});
