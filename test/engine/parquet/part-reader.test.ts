// The Parquet reader (engine/parquet/) against parquet-wasm on the same files: storage's own
// writer (two row groups, dictionary fallback to PLAIN, delta columns), parquet-wasm's
// defaults, v2 data pages with small pages and dictionaries, uncompressed pages, nulls,
// all-null and empty parts, mixed-type properties. What it does not decode (another codec,
// another type) it refuses with ParquetUnsupportedError, and PartReader then reads the part
// through parquet-wasm.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Float32, Int64, Table, tableToIPC, vectorFromArray } from "apache-arrow";
import { Compression, Encoding, Table as WasmTable, WriterPropertiesBuilder, WriterVersion, writeParquet } from "parquet-wasm";
import type { ColumnType } from "../../../engine/chunk-store.ts";
import { decodeColumn, type Decoded } from "../../../engine/columns.ts";
import { ParquetParts } from "../../../engine/parquet-parts.ts";
import { readFooter } from "../../../engine/parquet/footer.ts";
import { chunkPages } from "../../../engine/parquet/pages.ts";
import { readPartColumns } from "../../../engine/parquet/part-columns.ts";
import { PartReader } from "../../../engine/parquet/part-reader.ts";
import { ParquetUnsupportedError } from "../../../engine/parquet/unsupported.ts";
import { parquetRowGroupRows, writeParquetPart } from "../../../storage/data-files.ts";
import { eventsToTable } from "../../../storage/event-buffer.ts";
import type { StoredEvent } from "../../../storage/event-record.ts";
import { storedEvent } from "../../storage/fixtures.ts";
import { pick, seededRandom } from "../dataset.ts";

const dir = mkdtempSync(join(tmpdir(), "parquet-reader-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const browsers = ["Firefox", "Chrome", "Safari", "Édge ✓", "\uFEFFbom first", "", null];

/** Seeded events covering what parts hold: nulls, repeats, unique and non-ASCII text, booleans, mixed types, wide integers. */
function events(count: number, seed: number): StoredEvent[] {
  const random = seededRandom(seed);
  let timestamp = Date.parse("2026-11-20T00:00:00Z");
  return Array.from({ length: count }, (_, i) => {
    // Sorted by person then time, as compaction writes parts; some persons far apart, some times before 1970.
    const person = Math.floor(i / 9) * (i % 1000 === 0 ? 1 : 37) + (i > count / 2 ? 2_000_000_000 - count : 0);
    timestamp = i % 9 === 0 ? Date.parse("2026-11-20T00:00:00Z") - Math.floor(random() * 86_400_000) * (i % 5_000 === 0 ? 30_000 : 1) : timestamp + Math.floor(random() * 60_000);
    return storedEvent({
      event: pick(random, ["$pageview", "purchase", "signup", "clicked"]),
      timestamp,
      distinct_id: `user-${person}`,
      session_id: random() < 0.1 ? null : `session-${Math.floor(i / 5)}`,
      geo_country: random() < 0.25 ? null : pick(random, ["GB", "FR", "DE"]),
      is_suspect: random() < 0.2,
      sample_rate: i % 13 === 0 ? 0.5 : 1,
      person_index: person,
      properties: {
        $browser: pick(random, browsers),
        price: random() < 0.2 ? null : Math.round(random() * 100_000) / 100,
        paid: random() < 0.1 ? null : random() < 0.5,
        mixed: i % 2 === 0 ? i : `text-${i}`,
        note: random() < 0.3 ? `note ${random().toString(36)} ✓` : null,
        only_null: null,
        // Absent from the whole first row group of storage's parts: a chunk its statistics show to be all null.
        late: i >= parquetRowGroupRows ? random() : null,
      },
    });
  });
}

function writeWith(name: string, rows: StoredEvent[], properties: WriterPropertiesBuilder): string {
  const path = join(dir, name);
  writeFileSync(path, writeParquet(WasmTable.fromIPCStream(tableToIPC(eventsToTable(rows), "stream")), properties.build()));
  return path;
}

/** Each row's value of a decoded column (null where absent): what the executor reads, whatever the codes' numbering. */
function rowValues(column: Decoded): unknown[] {
  if (column instanceof Float64Array || column instanceof Int32Array) return Array.from(column);
  if (column.kind === "number") return Array.from(column.values, (value, row) => (column.present && column.present[row] === 0 ? null : value));
  return Array.from(column.codes, (code) => (code < 0 ? null : column.words[code]));
}

/** Every column of a part as parquet-wasm reads it (schema and rows). */
async function viaWasm(path: string): Promise<{ schema: Map<string, ColumnType>; rows: Map<string, unknown[]> }> {
  const parts = new ParquetParts();
  const schema = await parts.schema(path);
  const columns = await parts.read(path, [...schema.keys()], (name, arrays) => decodeColumn(arrays, schema.get(name)!));
  return { schema, rows: new Map([...columns].map(([name, column]) => [name, rowValues(column)])) };
}

async function expectSameAsWasm(path: string): Promise<void> {
  const expected = await viaWasm(path);
  const footer = readFooter(path);
  expect(new Map(footer.columns.map((column) => [column.name, column.type]))).toEqual(expected.schema);
  const columns = readPartColumns(path, footer, [...expected.schema.keys()]);
  for (const name of expected.schema.keys()) expect([name, rowValues(columns.get(name)!)]).toEqual([name, expected.rows.get(name)!]);
}

test("parts written by storage's writer read as parquet-wasm reads them: two row groups, uuids past the dictionary limit, delta columns", async () => {
  const rows = events(parquetRowGroupRows + 9_000, 1);
  const path = join(dir, "storage.parquet");
  writeParquetPart(path, eventsToTable(rows));
  const footer = readFooter(path);
  expect(footer.rowGroups.map((group) => group.rows)).toEqual([parquetRowGroupRows, 9_000]);
  const late = footer.columns.findIndex((column) => column.name === "p_late");
  expect(footer.rowGroups.map((group) => group.chunks[late]!.nullCount)).toEqual([parquetRowGroupRows, 0]);
  await expectSameAsWasm(path);
  // Same values, also through the executor's form: timestamps and persons as written.
  const columns = readPartColumns(path, footer, ["timestamp", "person_index", "uuid"]);
  expect(Array.from(columns.get("timestamp") as Float64Array)).toEqual(rows.map((row) => row.timestamp));
  expect(Array.from(columns.get("person_index") as Int32Array)).toEqual(rows.map((row) => row.person_index));
  expect(rowValues(columns.get("uuid")!)).toEqual(rows.map((row) => row.uuid));
});

test("v2 data pages, small pages and dictionaries (text falling back to DELTA_BYTE_ARRAY, numbers to PLAIN), RLE booleans, many row groups, uncompressed", async () => {
  const properties = new WriterPropertiesBuilder()
    .setWriterVersion(WriterVersion.V2)
    .setCompression(Compression.UNCOMPRESSED)
    .setMaxRowGroupSize(1_000)
    .setDataPageSizeLimit(2_000)
    .setDictionaryPageSizeLimit(300)
    .setColumnDictionaryEnabled("person_index", false)
    .setColumnEncoding("person_index", Encoding.DELTA_BINARY_PACKED);
  await expectSameAsWasm(writeWith("v2.parquet", events(4_500, 2), properties));
});

test("parquet-wasm's default settings with zstd (dictionaries for every column, timestamps included)", async () => {
  await expectSameAsWasm(writeWith("defaults.parquet", events(3_000, 3), new WriterPropertiesBuilder().setCompression(Compression.ZSTD)));
});

test("a part of one row and a part without rows", async () => {
  await expectSameAsWasm(writeWith("one.parquet", events(1, 4), new WriterPropertiesBuilder().setCompression(Compression.ZSTD)));
  const empty = writeWith("empty.parquet", [], new WriterPropertiesBuilder().setCompression(Compression.ZSTD));
  const footer = readFooter(empty);
  expect(footer.rows).toBe(0);
  expect(rowValues(readPartColumns(empty, footer, ["event"]).get("event")!)).toEqual([]);
});

test("another codec is refused page by page, and PartReader reads the part through parquet-wasm instead", async () => {
  const path = writeWith("snappy.parquet", events(2_000, 5), new WriterPropertiesBuilder().setCompression(Compression.SNAPPY));
  const footer = readFooter(path);
  const chunk = footer.rowGroups[0]!.chunks[footer.columns.findIndex((column) => column.name === "event")]!;
  expect(() => [...chunkPages(new Uint8Array(chunk.compressedBytes), chunk.codec, true)]).toThrow(ParquetUnsupportedError);
  const expected = await viaWasm(path);
  const reader = new PartReader();
  const schema = await reader.schema(path);
  expect(schema).toEqual(expected.schema);
  const columns = await reader.read(path, ["event", "timestamp", "p_price"], schema);
  expect(new Map([...columns].map(([name, column]) => [name, rowValues(column)]))).toEqual(
    new Map(["event", "timestamp", "p_price"].map((name) => [name, expected.rows.get(name)!])),
  );
});

test("a file with a type parts never hold is refused as a whole, and read through parquet-wasm", async () => {
  const table = new Table({ small: vectorFromArray([1.5, 2.5], new Float32()), wide: vectorFromArray([1n, 2n], new Int64()) });
  const path = join(dir, "types.parquet");
  writeFileSync(path, writeParquet(WasmTable.fromIPCStream(tableToIPC(table, "stream"))));
  expect(() => readFooter(path)).toThrow(ParquetUnsupportedError);
  expect(await new PartReader().schema(path)).toEqual(await new ParquetParts().schema(path));
});
