import { expect, test } from "bun:test";
import { tableFromIPC, tableToIPC } from "apache-arrow";
import { Compression, Table as WasmTable, WriterPropertiesBuilder, readParquet, writeParquet } from "parquet-wasm";
import { eventsToTable } from "../../storage/event-buffer.ts";
import { propertyColumnsMax, tableToEvents } from "../../storage/event-columns.ts";
import { storedEvent } from "./fixtures.ts";

const rows = [
  storedEvent({
    event: "checkout",
    distinct_id: "u1",
    anon_id: "anon-1",
    session_id: Bun.randomUUIDv7(),
    window_id: Bun.randomUUIDv7(),
    consent: "cookieless",
    sample_rate: 0.25,
    geo_country: "GB",
    geo_region: "ENG",
    geo_city: "St Albans",
    geo_timezone: "Europe/London",
    is_suspect: true,
    person_index: 12,
    groups: { company: "acme" },
    set: { plan: "pro" },
    set_once: { first_seen: "2026-01-01" },
    properties: { price: 999, currency: "EUR", paid: true, tags: ["a", "b"], nested: { x: 1 }, mixed: 1, $sample_rate: 0.25 },
  }),
  storedEvent({ properties: { price: 5, mixed: "one", paid: false } }),
  storedEvent({ properties: {} }),
];

test("columns: fixed, typed property columns, mixed as JSON text, nested kept in properties", () => {
  const table = eventsToTable(rows);
  expect(table.schema.fields.map((field) => `${field.name}:${field.type}`)).toEqual([
    "uuid:Utf8", "event:Dictionary<Int32, Utf8>", "timestamp:Timestamp<MILLISECOND, UTC>", "distinct_id:Utf8", "anon_id:Utf8",
    "session_id:Utf8", "window_id:Utf8", "lib_name:Dictionary<Int32, Utf8>", "lib_version:Dictionary<Int32, Utf8>",
    "consent:Dictionary<Int32, Utf8>", "sample_rate:Float64", "geo_country:Dictionary<Int32, Utf8>",
    "geo_region:Dictionary<Int32, Utf8>", "geo_city:Dictionary<Int32, Utf8>", "geo_timezone:Dictionary<Int32, Utf8>",
    "is_suspect:Bool", "person_index:Int32",
    "$group_0:Dictionary<Int32, Utf8>", "$group_1:Dictionary<Int32, Utf8>", "$group_2:Dictionary<Int32, Utf8>",
    "$group_3:Dictionary<Int32, Utf8>", "$group_4:Dictionary<Int32, Utf8>", "groups:Utf8", "set:Utf8", "set_once:Utf8", "properties:Utf8",
    "pj_mixed:Utf8", "p_paid:Bool", "p_price:Float64", "p_$sample_rate:Float64", "p_currency:Dictionary<Int32, Utf8>",
  ]);
  expect(table.getChild("properties")!.get(0)).toBe(JSON.stringify({ tags: ["a", "b"], nested: { x: 1 } }));
  expect(table.getChild("properties")!.get(2)).toBeNull();
});

test("rows survive Arrow IPC and zstd Parquet unchanged", () => {
  const ipc = tableFromIPC(tableToIPC(eventsToTable(rows), "file"));
  expect(tableToEvents(ipc)).toEqual(rows);
  const parquet = writeParquet(
    WasmTable.fromIPCStream(tableToIPC(eventsToTable(rows), "stream")),
    new WriterPropertiesBuilder().setCompression(Compression.ZSTD).build(),
  );
  expect(tableToEvents(tableFromIPC(readParquet(parquet).intoIPCStream()))).toEqual(rows);
});

test(`the first ${propertyColumnsMax} keys seen become columns; the rest stay in JSON`, () => {
  const many = Array.from({ length: 3 }, (_, i) =>
    storedEvent({ properties: Object.fromEntries(Array.from({ length: propertyColumnsMax + 10 }, (_, k) => [`k${k}`, k < 5 || i === 0 ? k : null])) }),
  );
  const table = eventsToTable(many);
  expect(table.schema.fields.filter((field) => field.name.startsWith("p_"))).toHaveLength(propertyColumnsMax);
  expect(tableToEvents(table).map((row) => row.properties)).toEqual(
    many.map((row) => Object.fromEntries(Object.entries(row.properties).filter(([, value]) => value !== null))),
  );
});
