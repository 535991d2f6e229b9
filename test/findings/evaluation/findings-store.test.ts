// The findings store on its own file: one finding per rule and period ever, also after the
// file is opened again (a restart); the daily cap counted per rule and UTC day of raising;
// handing on once; acknowledging once (the first is kept); listing filters and paging; another
// project's finding is not found.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FindingsStore, judgedPeriodsKeptMs } from "../../../storage/findings-store.ts";
import type { RaisedFinding } from "../../../server/findings/findings-types.ts";

let dir: string;
let db: Database;
let store: FindingsStore;
const projectId = "0193d7a0-0000-7000-8000-0000000000f1";
const otherProject = "0193d7a0-0000-7000-8000-0000000000f2";
const ruleId = "rule-a";
const dayStart = Date.parse("2026-11-23T00:00:00Z");
const hourMs = 3_600_000;

const finding = (periodStart: number, raisedAt: number, overrides: Partial<RaisedFinding> = {}): Omit<RaisedFinding, "sent"> => ({
  id: crypto.randomUUID(), projectId, ruleId, ruleName: "A", target: { kind: "event_volume", event: "signup" }, cadence: "hourly", severity: "warning",
  periodStart: new Date(periodStart).toISOString(), periodEnd: new Date(periodStart + hourMs).toISOString(), value: 38, baseline: 100, change: -62,
  relativeChange: -0.62, anomalyZ: null, summary: "signup fell 62%", raisedAt: new Date(raisedAt).toISOString(), ...overrides,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "findings-store-"));
  db = new Database(join(dir, "region.sqlite"), { create: true, strict: true });
  store = new FindingsStore(db);
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("once per rule and period", () => {
  test("a period raises once, also after the file is opened again", () => {
    const raised = finding(dayStart, dayStart + hourMs);
    expect(store.recordJudgement(projectId, ruleId, dayStart, raised, 10, dayStart + hourMs)).toEqual({ ...raised, sent: true });
    expect(store.wasJudged(ruleId, dayStart)).toBe(true);
    expect(store.recordJudgement(projectId, ruleId, dayStart, finding(dayStart, dayStart + 2 * hourMs), 10, dayStart + 2 * hourMs)).toBeNull();
    db.close();
    db = new Database(join(dir, "region.sqlite"), { strict: true });
    store = new FindingsStore(db);
    expect(store.wasJudged(ruleId, dayStart)).toBe(true);
    store.pruneJudged(dayStart + judgedPeriodsKeptMs + 1);
    expect(store.wasJudged(ruleId, dayStart)).toBe(false);
    expect(store.recordJudgement(projectId, ruleId, dayStart, finding(dayStart, dayStart + 3 * hourMs), 10, dayStart + 3 * hourMs)).toBeNull();
    expect(store.list(projectId, { ruleId: null, acknowledged: null, limit: 10, offset: 0 })).toEqual([{ ...raised, sent: true, acknowledgedAt: null, acknowledgedBy: null }]);
  });

  test("a period judged without a finding is remembered and raises nothing", () => {
    expect(store.recordJudgement(projectId, ruleId, dayStart, null, 10, dayStart)).toBeNull();
    expect(store.wasJudged(ruleId, dayStart)).toBe(true);
    expect(store.wasJudged(ruleId, dayStart + hourMs)).toBe(false);
  });
});

describe("daily cap", () => {
  test("at most the cap sent per rule and UTC day; the rest stored unsent and never handed on", () => {
    const sent = [0, 1, 2].map((hour) => store.recordJudgement(projectId, ruleId, dayStart + hour * hourMs, finding(dayStart + hour * hourMs, dayStart + (hour + 1) * hourMs), 2, 0)!.sent);
    expect(sent).toEqual([true, true, false]);
    // Another rule has its own cap; the next UTC day starts again.
    expect(store.recordJudgement(projectId, "rule-b", dayStart, finding(dayStart, dayStart + hourMs + 1, { ruleId: "rule-b" }), 2, 0)!.sent).toBe(true);
    expect(store.recordJudgement(projectId, ruleId, dayStart + 23 * hourMs, finding(dayStart + 23 * hourMs, dayStart + 24 * hourMs), 2, 0)!.sent).toBe(true);
    expect(store.recordJudgement(projectId, ruleId, dayStart + 22 * hourMs, finding(dayStart + 22 * hourMs, dayStart + 24 * hourMs - 1), 2, 0)!.sent).toBe(false);
    // A cap of 0 sends nothing.
    expect(store.recordJudgement(projectId, "rule-c", dayStart, finding(dayStart, dayStart + hourMs, { ruleId: "rule-c" }), 0, 0)!.sent).toBe(false);
    const toHandOn = store.toHandOn(100);
    expect(toHandOn.map(({ ruleId, periodStart, sent }) => [ruleId, periodStart, sent])).toEqual([
      [ruleId, new Date(dayStart).toISOString(), true],
      ["rule-b", new Date(dayStart).toISOString(), true],
      [ruleId, new Date(dayStart + hourMs).toISOString(), true],
      [ruleId, new Date(dayStart + 23 * hourMs).toISOString(), true],
    ]);
    for (const stored of toHandOn) store.markHandedOn(stored.id);
    expect(store.toHandOn(100)).toEqual([]);
  });
});

describe("acknowledging and listing", () => {
  test("the first acknowledgement is kept; another project's finding is not found", () => {
    const raised = store.recordJudgement(projectId, ruleId, dayStart, finding(dayStart, dayStart + hourMs), 10, 0)!;
    expect(store.acknowledge(otherProject, raised.id, "user-2", dayStart + 2 * hourMs)).toBeNull();
    expect(store.get(otherProject, raised.id)).toBeNull();
    const first = store.acknowledge(projectId, raised.id, "user-1", dayStart + 2 * hourMs);
    expect(first).toEqual({ ...raised, acknowledgedAt: new Date(dayStart + 2 * hourMs).toISOString(), acknowledgedBy: "user-1" });
    expect(store.acknowledge(projectId, raised.id, "user-2", dayStart + 3 * hourMs)).toEqual(first);
  });

  test("filters by rule and acknowledgement, newest raised first, with limit and offset", () => {
    const [a0, b1, a2, b3] = [0, 1, 2, 3].map((hour) => store.recordJudgement(projectId, hour % 2 === 0 ? "rule-a" : "rule-b", dayStart + hour * hourMs, finding(dayStart + hour * hourMs, dayStart + (hour + 1) * hourMs, { ruleId: hour % 2 === 0 ? "rule-a" : "rule-b" }), 10, 0)!.id) as [string, string, string, string];
    store.acknowledge(projectId, b1, "user-1", dayStart + 5 * hourMs);
    const list = (filter: Partial<Parameters<FindingsStore["list"]>[1]>) => store.list(projectId, { ruleId: null, acknowledged: null, limit: 10, offset: 0, ...filter }).map(({ id }) => id);
    expect(list({})).toEqual([b3, a2, b1, a0]);
    expect(list({ ruleId: "rule-a" })).toEqual([a2, a0]);
    expect(list({ ruleId: "rule-z" })).toEqual([]);
    expect(list({ acknowledged: true })).toEqual([b1]);
    expect(list({ acknowledged: false })).toEqual([b3, a2, a0]);
    expect(list({ limit: 2, offset: 1 })).toEqual([a2, b1]);
    expect(list({ offset: 4 })).toEqual([]);
    expect(store.list(otherProject, { ruleId: null, acknowledged: null, limit: 10, offset: 0 })).toEqual([]);
  });

});
