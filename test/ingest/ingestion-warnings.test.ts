// The ingestion-warning counter over a real region.sqlite: counts are kept in memory and
// written on flush, at a clean shutdown and when too many kinds are pending; rows older than
// the days kept are deleted; one log line per project environment gives its counts by reason.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RegionStore, type RegistryKey } from "../../storage/region-store.ts";
import { warningDaysKept } from "../../storage/ingestion-warning-store.ts";
import { pseudonym } from "../../server/ingest/pseudonyms.ts";
import { IngestionWarnings, pendingWarningsMax, type WarningsOptions } from "../../server/ingest/ingestion-warnings.ts";

const dayMs = 86_400_000;
/** Long enough that no timer fires during a test: every write here is one the test asks for. */
const quiet = { flushIntervalMs: 3_600_000, logIntervalMs: 3_600_000 };

let dir: string;
let store: RegionStore;
const lines: string[] = [];
const pseudonymKey = new Uint8Array(32).fill(7);
const options: WarningsOptions = { region: "eu", catalogPii: () => new Set(), pseudonymKey: () => pseudonymKey, log: (line) => lines.push(line), ...quiet };

const key = (projectId: string, environment = "production") => ({ projectId, environment }) as RegistryKey;
const invalid = { reason: "invalid", message: "properties must be a JSON object" } as const;
const duplicate = { reason: "duplicate", message: "an event with this uuid was already accepted; it is stored once" } as const;
const day = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);
const everything = { reason: null, from: "2000-01-01", to: "2999-12-31" };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "warnings-test-"));
  store = new RegionStore(join(dir, "region.sqlite"));
  lines.length = 0;
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("IngestionWarnings", () => {
  test("counts stay in memory until a flush; close() writes what is pending, so a clean shutdown loses no count", async () => {
    const now = Date.now();
    const warnings = new IngestionWarnings(store.ingestionWarnings, options);
    warnings.record(key("p1"), invalid, { first: true }, now - 10);
    warnings.record(key("p1"), invalid, { second: true }, now);
    expect(store.ingestionWarnings.list("p1", "production", everything)).toEqual([]);
    warnings.close();
    const expected = {
      projectId: "p1", environment: "production", day: day(now), ...invalid, count: 2, firstSeen: now - 10, lastSeen: now, example: '{"first":true}', exampleIds: [],
    };
    expect(store.ingestionWarnings.list("p1", "production", everything)).toEqual([expected]);
    // After a restart, counts add to what is stored; the example is the latest flushed one.
    const again = new IngestionWarnings(store.ingestionWarnings, options);
    // The ids it names are kept beside it, a contact as its pseudonym (as the text masks it).
    again.record(key("p1"), invalid, { third: true, distinct_id: "Jane@Example.com", properties: { $anon_distinct_id: "a-3" } }, now + 5);
    expect(again.list("p1", "production", everything)).toEqual([{
      ...expected, count: 3, lastSeen: now + 5, example: '{"third":true,"distinct_id":"[masked]","properties":{"$anon_distinct_id":"a-3"}}',
      exampleIds: [pseudonym(pseudonymKey, "email", "jane@example.com"), "a-3"],
    }]);
    again.close();
  });

  test(`${pendingWarningsMax} kinds pending are written at once, without waiting for the timer`, () => {
    const warnings = new IngestionWarnings(store.ingestionWarnings, options);
    const now = Date.now();
    for (let index = 0; index < pendingWarningsMax - 1; index++) warnings.record(key(`p${index}`), invalid, {}, now);
    expect(store.ingestionWarnings.list("p0", "production", everything)).toEqual([]);
    warnings.record(key("last"), invalid, {}, now);
    expect(store.ingestionWarnings.list("p0", "production", everything).map((row) => row.count)).toEqual([1]);
    expect(store.ingestionWarnings.list("last", "production", everything).map((row) => row.count)).toEqual([1]);
    warnings.close();
  });

  test(`days before the last ${warningDaysKept} are deleted when counts are written`, () => {
    const warnings = new IngestionWarnings(store.ingestionWarnings, options);
    const now = Date.now();
    const oldest = now - (warningDaysKept - 1) * dayMs;
    warnings.record(key("p1"), invalid, {}, oldest - dayMs);
    warnings.record(key("p1"), invalid, {}, oldest);
    warnings.record(key("p1"), invalid, {}, now);
    warnings.flush(now);
    expect(store.ingestionWarnings.list("p1", "production", everything).map((row) => row.day)).toEqual([day(now), day(oldest)]);
    warnings.close();
  });

  test("one log line per project environment with warnings since the last, counts by reason, no payload", () => {
    const warnings = new IngestionWarnings(store.ingestionWarnings, options);
    const now = Date.now();
    for (let index = 0; index < 3; index++) warnings.record(key("p1"), invalid, { secret: "payload" }, now);
    warnings.record(key("p1"), duplicate, {}, now);
    warnings.record(key("p1", "staging"), duplicate, {}, now);
    warnings.logCounts();
    expect(lines).toEqual([
      "ingestion warnings: region=eu project=p1 environment=production invalid=3 duplicate=1",
      "ingestion warnings: region=eu project=p1 environment=staging duplicate=1",
    ]);
    warnings.logCounts();
    expect(lines).toHaveLength(2);
    warnings.record(key("p2"), invalid, {}, now);
    warnings.close();
    expect(lines.at(-1)).toBe("ingestion warnings: region=eu project=p2 environment=production invalid=1");
  });
});
