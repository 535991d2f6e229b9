// Parquet files from the hand-written writer, read by two independent readers: parquet-wasm
// (arrow-rs; what compaction reads parts back with) and DuckDB (what /sql and the tests'
// reference engine read them with). Both must see exactly the rows written, with every column
// type event files hold, nulls, several row groups and pages, and the dictionary fallback.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { tableFromIPC, type Table } from "apache-arrow";
import { readParquet } from "parquet-wasm";
import { eventsToTable } from "../../../storage/event-buffer.ts";
import { tableToEvents } from "../../../storage/event-columns.ts";
import type { StoredEvent } from "../../../storage/event-record.ts";
import { defaultPageLimits, type PageLimits } from "../../../storage/parquet/column-chunk-writer.ts";
import { encodeParquetFile } from "../../../storage/parquet/parquet-file-writer.ts";
import { seededRandom } from "../../engine/dataset.ts";
import { storedEvent } from "../fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "parquet-writer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const duckdb = await (await DuckDBInstance.create(":memory:", { threads: "1" })).connect();
let fileNumber = 0;

function write(table: Table, rowGroupRows: number, limits: PageLimits = defaultPageLimits): string {
  const path = join(dir, `file-${++fileNumber}.parquet`);
  writeFileSync(path, encodeParquetFile(table, rowGroupRows, limits));
  return path;
}

const readByParquetWasm = (path: string): Table => tableFromIPC(readParquet(readFileSync(path)).intoIPCStream());

async function readByDuckDb(sql: string): Promise<unknown[][]> {
  return (await duckdb.runAndReadAll(sql)).getRowsJS() as unknown[][];
}

/** Seeded events using every column type: unicode, empty and long strings, nulls, extremes. */
function seededEvents(count: number, seed: number): StoredEvent[] {
  const random = seededRandom(seed);
  const pick = <T>(values: T[]) => values[Math.floor(random() * values.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const properties: Record<string, unknown> = { plan: pick(["free", "pro", "", "ünïcødé ✓", "x".repeat(300)]), amount: pick([0, -0.5, 1e300, -(2 ** 53), 42, 7.25]) };
    if (random() < 0.5) properties.flag = random() < 0.5;
    if (random() < 0.3) properties.mixed = random() < 0.5 ? "text" : 12;
    if (random() < 0.2) properties.nested = { list: [1, 2, { deep: "yes" }] };
    if (random() < 0.1) properties.rare = `value-${Math.floor(random() * 1e6)}`;
    return storedEvent({
      event: pick(["$pageview", "signed_up", "purchase"]),
      timestamp: Date.parse("2026-11-20T00:00:00Z") + Math.floor(random() * 86_400_000),
      distinct_id: `user-${Math.floor(random() * 500)}`,
      anon_id: random() < 0.2 ? `anon-${i}` : null,
      session_id: random() < 0.7 ? Bun.randomUUIDv7() : null,
      geo_country: random() < 0.5 ? pick(["GB", "PK", "AE"]) : null,
      is_suspect: random() < 0.1,
      person_index: random() < 0.01 ? 2147483647 : Math.floor(random() * 1000),
      sample_rate: pick([1, 0.25]),
      groups: random() < 0.3 ? { company: pick(["acme", "globex"]) } : null,
      set: random() < 0.1 ? { plan: "pro" } : null,
      properties,
    });
  });
}

describe("Parquet file writer", () => {
  const events = seededEvents(2_500, 1);
  const table = eventsToTable(events);

  test("parquet-wasm reads back exactly the rows written, in one or several row groups", () => {
    for (const rowGroupRows of [1 << 17, 1000, 1003]) {
      expect([rowGroupRows, tableToEvents(readByParquetWasm(write(table, rowGroupRows)))]).toEqual([rowGroupRows, events]);
    }
  });

  test("Arrow readers get the Arrow schema back (dictionary strings, the timestamp's zone)", () => {
    const back = readByParquetWasm(write(table, 1000));
    expect(back.schema.fields.map((field) => `${field.name}: ${String(field.type)}`)).toEqual(table.schema.fields.map((field) => `${field.name}: ${String(field.type)}`));
  });

  test("DuckDB reads the same values, types and statistics", async () => {
    const path = write(table, 1003);
    const rows = await readByDuckDb(
      `SELECT uuid, event, epoch_ms(timestamp), distinct_id, anon_id, session_id, geo_country, is_suspect, person_index, sample_rate, "$group_0", "set", p_plan, p_amount, p_flag, pj_mixed, properties FROM '${path}'`,
    );
    expect(rows).toEqual(events.map((event) => [
      event.uuid, event.event, BigInt(event.timestamp), event.distinct_id, event.anon_id, event.session_id, event.geo_country, event.is_suspect,
      event.person_index, event.sample_rate, event.group_keys[0], event.set === null ? null : JSON.stringify(event.set), event.properties.plan,
      event.properties.amount, event.properties.flag ?? null, event.properties.mixed === undefined ? null : JSON.stringify(event.properties.mixed),
      "nested" in event.properties ? JSON.stringify({ nested: event.properties.nested }) : null,
    ]));
    const types = await readByDuckDb(`SELECT column_name, column_type FROM (DESCRIBE SELECT timestamp, person_index, sample_rate, is_suspect, event, uuid FROM '${path}')`);
    expect(types).toEqual([["timestamp", "TIMESTAMP WITH TIME ZONE"], ["person_index", "INTEGER"], ["sample_rate", "DOUBLE"], ["is_suspect", "BOOLEAN"], ["event", "VARCHAR"], ["uuid", "VARCHAR"]]);
    // Each row group's statistics: its null count, min and max (numbers as numbers, strings as they are).
    const statistics = (await readByDuckDb(
      `SELECT row_group_id, path_in_schema, stats_null_count, stats_min_value, stats_max_value FROM parquet_metadata('${path}') WHERE path_in_schema IN ('person_index', 'anon_id', 'p_amount') ORDER BY row_group_id, path_in_schema`,
    )).map(([group, column, nulls, min, max]) => (column === "anon_id" ? [group, column, nulls, min, max] : [group, column, nulls, Number(min), Number(max)]));
    const expected: unknown[][] = [];
    for (let group = 0; group * 1003 < events.length; group++) {
      const slice = events.slice(group * 1003, (group + 1) * 1003);
      const amounts = slice.map((event) => event.properties.amount as number);
      const persons = slice.map((event) => event.person_index);
      // ASCII ids: JavaScript's string order is their bytewise order.
      const anonIds = slice.flatMap((event) => (event.anon_id === null ? [] : [event.anon_id])).sort();
      expected.push(
        [BigInt(group), "anon_id", BigInt(slice.filter((event) => event.anon_id === null).length), anonIds[0], anonIds[anonIds.length - 1]],
        [BigInt(group), "p_amount", 0n, Math.min(...amounts), Math.max(...amounts)],
        [BigInt(group), "person_index", 0n, Math.min(...persons), Math.max(...persons)],
      );
    }
    expect(statistics).toEqual(expected);
  });

  test("plain strings split into pages at the size target; a dictionary past its limit is written plain", async () => {
    const limits: PageLimits = { dataPageBytesTarget: 2_000, dictionaryPageBytesMax: 64 };
    const path = write(table, 1000, limits);
    expect(tableToEvents(readByParquetWasm(path))).toEqual(events);
    // p_plan's words (one of 300 bytes) pass the 64-byte dictionary limit; event's three do not.
    const encodings = await readByDuckDb(`SELECT DISTINCT path_in_schema, encodings FROM parquet_metadata('${path}') WHERE path_in_schema IN ('event', 'p_plan', 'uuid') ORDER BY 1`);
    expect(encodings).toEqual([["event", "RLE, PLAIN, RLE_DICTIONARY"], ["p_plan", "RLE, PLAIN"], ["uuid", "RLE, PLAIN"]]);
    expect(await readByDuckDb(`SELECT count(*), count(DISTINCT uuid), count(p_plan) FROM '${path}'`)).toEqual([[2500n, 2500n, 2500n]]);
    const withDictionary = write(table, 1000);
    expect(await readByDuckDb(`SELECT DISTINCT encodings FROM parquet_metadata('${withDictionary}') WHERE path_in_schema = 'p_plan'`)).toEqual([["RLE, PLAIN, RLE_DICTIONARY"]]);
  });

  test("columns that are all null, all one value, or absent from a row group's rows", async () => {
    const quiet = Array.from({ length: 20 }, (_, i) => storedEvent({ person_index: 7, properties: i < 10 ? { only_first: "a" } : {} }));
    const path = write(eventsToTable(quiet), 10);
    expect(tableToEvents(readByParquetWasm(path))).toEqual(quiet);
    expect(await readByDuckDb(`SELECT count(anon_id), count(p_only_first), min(person_index), max(person_index) FROM '${path}'`)).toEqual([[0n, 10n, 7, 7]]);
  });
});
