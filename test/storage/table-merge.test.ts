import { describe, expect, test } from "bun:test";
import { Table, makeVector, tableFromIPC, tableToIPC } from "apache-arrow";
import { Table as WasmTable, readParquet, writeParquet } from "parquet-wasm";
import { Utf8Builder } from "../../storage/column-builders.ts";
import { eventsToTable } from "../../storage/event-buffer.ts";
import { propertyColumnsMax, tableBytes, tableToEvents } from "../../storage/event-columns.ts";
import { MergeInput, sortByPersonAndTime } from "../../storage/table-merge.ts";
import { storedEvent } from "./fixtures.ts";

const allRows = (input: MergeInput) => Int32Array.from({ length: input.rows }, (_, row) => row);
const eventsSetting = (count: number, properties: Record<string, unknown>) => Array.from({ length: count }, () => storedEvent({ properties }));
const fieldTypes = (table: Table) => table.schema.fields.filter((field) => /^pj?_/.test(field.name)).map((field) => `${field.name}:${field.type}`);

describe("merging event files", () => {
  test("a property stored as a number in one file and text in another becomes JSON text; values come back as they were", () => {
    const numbers = [storedEvent({ properties: { size: 5, plan: "pro" } }), storedEvent({ properties: { size: 7 } })];
    const texts = [storedEvent({ properties: { size: "5", paid: true } })];
    const input = new MergeInput([eventsToTable(numbers), eventsToTable(texts)]);
    const merged = input.gather(allRows(input));
    expect(fieldTypes(merged)).toEqual(["pj_size:Utf8", "p_paid:Bool", "p_plan:Dictionary<Int32, Utf8>"]);
    expect(tableToEvents(merged)).toEqual([...numbers, ...texts]);
  });

  test("files from before property strings were dictionary-encoded (plain Utf8) merge into a dictionary column", () => {
    const events = [storedEvent({ properties: { plan: "pro" } }), storedEvent({ properties: { plan: "free" } }), storedEvent()];
    const plain = new Utf8Builder();
    plain.append("pro");
    plain.append("free");
    plain.appendNull();
    const table = eventsToTable(events);
    const oldStyle = new Table({ ...Object.fromEntries(table.schema.fields.map((field) => [field.name, table.getChild(field.name)!])), p_plan: makeVector(plain.finish()) });
    expect(fieldTypes(oldStyle)).toEqual(["p_plan:Utf8"]);
    const input = new MergeInput([oldStyle, eventsToTable([storedEvent({ properties: { plan: "pro" } })])]);
    const merged = input.gather(allRows(input));
    expect(fieldTypes(merged)).toEqual(["p_plan:Dictionary<Int32, Utf8>"]);
    expect(tableToEvents(merged).map((event) => event.properties)).toEqual([{ plan: "pro" }, { plan: "free" }, {}, { plan: "pro" }]);
  });

  test("gathered rows keep only the property columns they set", () => {
    const input = new MergeInput([eventsToTable([storedEvent({ properties: { a: 1 } }), storedEvent({ properties: { b: "x" } })])]);
    expect(fieldTypes(input.gather(Int32Array.of(1)))).toEqual(["p_b:Dictionary<Int32, Utf8>"]);
    expect(fieldTypes(input.gather(Int32Array.of(0)))).toEqual(["p_a:Float64"]);
  });

  test("first arrival of each uuid wins, then rows go by person and time", () => {
    const early = Date.parse("2026-11-20T10:00:00Z");
    const a = storedEvent({ person_index: 2, timestamp: early + 5 });
    const b = storedEvent({ person_index: 1, timestamp: early + 9 });
    const c = storedEvent({ person_index: 2, timestamp: early + 1 });
    const retry = { ...a, properties: { retried: true } };
    const input = new MergeInput([eventsToTable([a, b]), eventsToTable([retry, c])]);
    const order = input.firstArrivalsSorted(allRows(input));
    expect(tableToEvents(input.gather(order))).toEqual([b, c, a]);
  });

  test("uuids that are not canonical (written by older versions or tools) are compared as text; many rows keep only first arrivals", () => {
    const legacy = storedEvent({ uuid: "legacy-event-1", person_index: 1 });
    const legacyRetry = { ...legacy, properties: { retried: true } };
    const other = storedEvent({ uuid: "legacy-event-2", person_index: 1 });
    const many = Array.from({ length: 3000 }, (_, i) => storedEvent({ person_index: 2, timestamp: Date.parse("2026-11-20T10:00:00Z") + i }));
    const input = new MergeInput([eventsToTable([legacy, ...many.slice(0, 2000)]), eventsToTable([legacyRetry, other, ...many.slice(1000)])]);
    expect(tableToEvents(input.gather(input.firstArrivalsSorted(allRows(input))))).toEqual([legacy, other, ...many]);
  });

  test(`files holding more than ${propertyColumnsMax} keys together keep columns for the ${propertyColumnsMax} set on most rows; the others move into each row's properties JSON`, () => {
    const keys = (prefix: string, value: (k: number) => unknown) => Object.fromEntries(Array.from({ length: 300 }, (_, k) => [`${prefix}${k}`, value(k)]));
    const first = [
      storedEvent({ properties: { common: 1, nested: { x: 1 }, ...keys("a", (k) => k) } }),
      storedEvent({ properties: { common: 2 } }),
    ];
    const second = [
      storedEvent({ properties: { common: "three", flag: true, list: [1, 2], ...keys("b", (k) => `v${k}`) } }),
      storedEvent({ properties: { common: 4, flag: false } }),
    ];
    const input = new MergeInput([eventsToTable(first), eventsToTable(second)]);
    const merged = input.gather(allRows(input));
    // 602 keys: common (4 rows) and flag (2) first, then the 600 set on one row each by name.
    const byName = [...Array.from({ length: 300 }, (_, k) => `a${k}`), ...Array.from({ length: 300 }, (_, k) => `b${k}`)].sort();
    const folded = byName.slice(propertyColumnsMax - 2);
    const columns = merged.schema.fields.map((field) => field.name).filter((name) => /^pj?_/.test(name));
    expect(columns.sort()).toEqual(["pj_common", "p_flag", ...byName.slice(0, propertyColumnsMax - 2).map((key) => `p_${key}`)].sort());
    expect(folded).toHaveLength(102);
    const json = merged.getChild("properties")!.toArray() as (string | null)[];
    expect(json.map((text) => (text === null ? null : JSON.parse(text)))).toEqual([
      { nested: { x: 1 } },
      null,
      { list: [1, 2], ...Object.fromEntries(folded.map((key) => [key, `v${key.slice(1)}`])) },
      null,
    ]);
    expect(tableToEvents(merged)).toEqual([...first, ...second]);
  });

  test("bytesPerRow: the inputs' bytes, plus slots for rows whose file lacks a key, plus the JSON text of a key whose type differs between files", () => {
    const perRow = (tables: Table[]) => new MergeInput(tables).bytesPerRow;
    const sameKeys = [eventsToTable(eventsSetting(2, { a: 1, b: "x" })), eventsToTable(eventsSetting(3, { a: 2, b: "y" }))];
    const bytes = sameKeys.reduce((sum, table) => sum + tableBytes(table), 0);
    expect(perRow(sameKeys)).toBe(bytes / 5);
    const disjoint = [eventsToTable(eventsSetting(2, { a: 1 })), eventsToTable(eventsSetting(3, { b: 2 }))];
    // a is missing from 3 rows, b from 2: 8 bytes each.
    expect(perRow(disjoint)).toBe((disjoint.reduce((sum, table) => sum + tableBytes(table), 0) + 5 * 8) / 5);
    // One long string 1,000 times in a dictionary (stored once) becomes 1,000 JSON texts once the key is also a number elsewhere.
    const long = "x".repeat(10_000);
    const mixed = [eventsToTable(eventsSetting(1, { note: 1 })), eventsToTable(eventsSetting(1000, { note: long }))];
    const input = new MergeInput(mixed);
    const gathered = tableBytes(input.gather(allRows(input)));
    expect(gathered).toBeGreaterThan(1000 * (long.length + 2));
    expect(input.bytesPerRow * input.rows).toBeGreaterThanOrEqual(gathered);
    expect(input.bytesPerRow * input.rows).toBeLessThan(gathered * 1.1);
  });

  test("Parquet parts written from gathered tables read back into another merge", () => {
    const events = [storedEvent({ properties: { plan: "pro", n: 1 } }), storedEvent({ properties: { plan: "free" } })];
    const parquet = (table: Table) => tableFromIPC(readParquet(writeParquet(WasmTable.fromIPCStream(tableToIPC(table, "stream"))), { batchSize: 1 << 20 }).intoIPCStream());
    const first = new MergeInput([eventsToTable(events)]);
    const part = parquet(first.gather(allRows(first)));
    const second = new MergeInput([part, eventsToTable([storedEvent({ properties: { plan: "pro" } })])]);
    const merged = second.gather(allRows(second));
    expect(tableToEvents(merged).map((event) => event.properties)).toEqual([{ plan: "pro", n: 1 }, { plan: "free" }, { plan: "pro" }]);
  });
});

describe("sorting by person and time", () => {
  const check = (persons: number[], timestamps: number[], rows = persons.map((_, row) => row)) => {
    const sorted = [...sortByPersonAndTime(Int32Array.from(rows), Int32Array.from(persons), Float64Array.from(timestamps))];
    const expected = [...rows].sort((x, y) => persons[x]! - persons[y]! || timestamps[x]! - timestamps[y]! || x - y);
    expect(sorted).toEqual(expected);
  };

  test("short and long runs of one person out of time order, ties kept in arrival order", () => {
    const persons = Array.from({ length: 400 }, (_, row) => (row < 100 ? 3 : row % 4));
    const timestamps = Array.from({ length: 400 }, (_, row) => ((row * 7919) % 101) * 1000);
    check(persons, timestamps);
  });

  test("a subset of rows", () => {
    check([5, 1, 5, 1, 0], [3, 2, 1, 0, 9], [0, 2, 3]);
  });

  test("person indexes spread too far for counting fall back to a comparison sort", () => {
    check([2_000_000_000, 7, 2_000_000_000, 7], [5, 4, 1, 4]);
  });
});
