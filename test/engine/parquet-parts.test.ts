// Parquet parts read through the C data interface (engine/parquet-parts.ts, arrow-ffi.ts)
// decode to exactly what the IPC route through apache-arrow gives, on a part with several row
// groups (several record batches), nulls, repeated and non-ASCII text and every column type.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableFromIPC, tableToIPC } from "apache-arrow";
import { Compression, Table as WasmTable, WriterPropertiesBuilder, readParquet, writeParquet } from "parquet-wasm";
import { ChunkStore, type ChunkRef } from "../../engine/chunk-store.ts";
import { decodeColumn, fromArrowData } from "../../engine/columns.ts";
import { ParquetParts } from "../../engine/parquet-parts.ts";
import { eventsToTable } from "../../storage/event-buffer.ts";
import { storedEvent } from "../storage/fixtures.ts";

const rows = 2_500;
const rowGroupRows = 700;
const browsers = ["Firefox", "Chrome", "Safari", "Édge ✓", null];

const events = Array.from({ length: rows }, (_, i) =>
  storedEvent({
    event: i % 3 === 0 ? "$pageview" : i % 3 === 1 ? "purchase" : "signup",
    distinct_id: `user-${Math.floor(i / 7)}`,
    session_id: i % 11 === 0 ? null : `session-${Math.floor(i / 5)}`,
    geo_country: i % 4 === 0 ? null : ["GB", "FR", "DE"][i % 3]!,
    is_suspect: i % 5 === 0,
    sample_rate: i % 13 === 0 ? 0.5 : 1,
    person_index: Math.floor(i / 7),
    properties: {
      $browser: browsers[Math.floor(i / 3) % browsers.length],
      price: i % 6 === 0 ? null : i * 1.5,
      paid: i % 9 === 0 ? null : i % 2 === 0,
      mixed: i % 2 === 0 ? i : `text-${i}`,
    },
  }),
);

const dir = mkdtempSync(join(tmpdir(), "parquet-parts-"));
const path = join(dir, "part.parquet");
const properties = new WriterPropertiesBuilder().setCompression(Compression.ZSTD).setMaxRowGroupSize(rowGroupRows).build();
const bytes = writeParquet(WasmTable.fromIPCStream(tableToIPC(eventsToTable(events), "stream")), properties);
writeFileSync(path, bytes);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every column decoded from the IPC route, with types as the ChunkStore names apache-arrow's. */
function viaIpc() {
  const table = tableFromIPC(readParquet(bytes).intoIPCStream());
  const typeOf = (name: string) => {
    const type = String(table.schema.fields.find((field) => field.name === name)!.type);
    if (type === "Float64") return "number" as const;
    if (type === "Int32") return "int32" as const;
    if (type.startsWith("Timestamp")) return "timestamp" as const;
    return type === "Bool" ? ("bool" as const) : ("text" as const);
  };
  const names = table.schema.fields.map((field) => field.name);
  return {
    schema: new Map(names.map((name) => [name, typeOf(name)])),
    columns: new Map(names.map((name) => [name, decodeColumn(table.getChild(name)!.data.map(fromArrowData), typeOf(name))])),
  };
}

test("schema and every column read through the C data interface equal the IPC route's", async () => {
  const expected = viaIpc();
  const parts = new ParquetParts();
  const schema = await parts.schema(path);
  expect(schema).toEqual(expected.schema);
  const names = [...schema.keys()];
  const columns = await parts.read(path, names, (name, arrays) => {
    // Several row groups arrive as several batches: the decoders join them.
    expect(arrays.length).toBe(Math.ceil(rows / rowGroupRows));
    return decodeColumn(arrays, schema.get(name)!);
  });
  for (const name of names) expect([name, columns.get(name)]).toEqual([name, expected.columns.get(name)]);
});

test("a part opened for its schema is read once it is asked for, and again after release", async () => {
  const store = new ChunkStore();
  const ref: ChunkRef = { kind: "part", id: path, path, rows, day: "2026-01-01" };
  const expected = viaIpc().columns;
  const first = await store.columns(ref, ["timestamp", "p_$browser", "absent"]);
  expect([...first.keys()]).toEqual(["timestamp", "p_$browser"]);
  expect(first.get("p_$browser")).toEqual(expected.get("p_$browser")!);
  store.release([ref]);
  expect((await store.columns(ref, ["event"])).get("event")).toEqual(expected.get("event")!);
  expect((await store.columns(ref, ["timestamp", "event"])).get("timestamp")).toBe(first.get("timestamp")!);
});
