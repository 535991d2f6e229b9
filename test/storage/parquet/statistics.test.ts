// Column-chunk statistics as other readers see them: DuckDB reads each row group's min, max and
// null count of the timestamp, the event, a number and a string property, and skips row groups
// by them (a row group whose pages are made unreadable is never read by a query its
// statistics rule out); edge cases of the values (all null, empty strings, negatives, NaN,
// signed zeros, unicode ordered bytewise, long strings cut) round-trip as the format says.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, openSync, closeSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { readFooter } from "../../../engine/parquet/footer.ts";
import { summarizeRowGroups } from "../../../engine/parquet/row-group-summary.ts";
import { eventsToTable } from "../../../storage/event-buffer.ts";
import type { StoredEvent } from "../../../storage/event-record.ts";
import { encodeParquetFile } from "../../../storage/parquet/parquet-file-writer.ts";
import { statisticsValueBytesMax } from "../../../storage/parquet/statistics.ts";
import { storedEvent } from "../fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "parquet-statistics-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const duckdb = await (await DuckDBInstance.create(":memory:", { threads: "1" })).connect();
await duckdb.run("SET TimeZone = 'UTC'");
let fileNumber = 0;

function write(events: StoredEvent[], rowGroupRows: number): string {
  const path = join(dir, `file-${++fileNumber}.parquet`);
  writeFileSync(path, encodeParquetFile(eventsToTable(events), rowGroupRows));
  return path;
}

async function rows(sql: string): Promise<unknown[][]> {
  return (await duckdb.runAndReadAll(sql)).getRowsJS() as unknown[][];
}

/** Each row group's [column, null count, min, max, min exact, max exact] as DuckDB reads them. */
const statisticsOf = (path: string, columns: string[]) => rows(
  `SELECT row_group_id, path_in_schema, stats_null_count, stats_min_value, stats_max_value, min_is_exact, max_is_exact FROM parquet_metadata('${path}')
   WHERE path_in_schema IN (${columns.map((column) => `'${column}'`).join(", ")}) ORDER BY row_group_id, column_id`,
);

const day = Date.parse("2026-11-20T00:00:00Z");
const hourMs = 3_600_000;

describe("column statistics", () => {
  // Three row groups of four events, an hour apart each, with events and values of their own.
  const events = Array.from({ length: 12 }, (_, i) => storedEvent({
    event: ["alpha", "beta", "gamma"][Math.floor(i / 4)]! + (i % 2 === 0 ? "" : "_2"),
    timestamp: day + Math.floor(i / 4) * hourMs + (i % 4) * 1000,
    properties: { amount: (i - 6) * 1.5, ...(i % 4 === 3 ? {} : { plan: ["free", "pro", "team"][i % 3]! }) },
  }));

  test("DuckDB reads min, max and null count of the timestamp, the event, a number and a string column", async () => {
    const path = write(events, 4);
    const ts = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")}+00`;
    const expected: unknown[][] = [];
    for (let group = 0; group < 3; group++) {
      const at = day + group * hourMs;
      const name = ["alpha", "beta", "gamma"][group]!;
      const amounts = [0, 1, 2, 3].map((i) => (group * 4 + i - 6) * 1.5);
      const plans = [0, 1, 2].map((i) => ["free", "pro", "team"][(group * 4 + i) % 3]!).sort();
      expected.push(
        [BigInt(group), "event", 0n, name, `${name}_2`, true, true],
        [BigInt(group), "timestamp", 0n, ts(at), ts(at + 3000), true, true],
        [BigInt(group), "p_amount", 0n, String(amounts[0]!.toFixed(1)), String(amounts[3]!.toFixed(1)), true, true],
        [BigInt(group), "p_plan", 1n, plans[0], plans[2], true, true],
      );
    }
    expect(await statisticsOf(path, ["event", "timestamp", "p_amount", "p_plan"])).toEqual(expected);
  });

  test("DuckDB skips row groups by them: a row group it cannot decode is never read by a query its statistics rule out", async () => {
    const path = write(events, 4);
    // Row group 0's column chunks overwritten with bytes no decoder takes.
    const fd = openSync(path, "r+");
    for (const chunk of readFooter(path).rowGroups[0]!.chunks) writeSync(fd, new Uint8Array(chunk.compressedBytes).fill(0xff), 0, chunk.compressedBytes, chunk.start);
    closeSync(fd);
    const at = (ms: number) => `TIMESTAMPTZ '${new Date(ms).toISOString()}'`;
    // Sums need the values (a count DuckDB may answer from the statistics alone).
    expect(await rows(`SELECT count(*), sum(p_amount) FROM '${path}' WHERE timestamp >= ${at(day + hourMs)}`)).toEqual([[8n, 18]]);
    expect(await rows(`SELECT count(*), sum(p_amount) FROM '${path}' WHERE event = 'gamma_2'`)).toEqual([[2n, 12]]);
    expect(await rows(`SELECT count(*), sum(p_amount) FROM '${path}' WHERE p_amount > 0`)).toEqual([[5n, 22.5]]);
    // A query the statistics do not rule row group 0 out of reads it, and fails: the test sees reads.
    expect(rows(`SELECT count(*), sum(p_amount) FROM '${path}' WHERE timestamp >= ${at(day)}`)).rejects.toThrow();
  });

  test("our reader's summary: each row group's time range and listed events", () => {
    const path = write(events, 4);
    expect(summarizeRowGroups(readFooter(path)).map((group) => ({ ...group, events: group.events && [...group.events] }))).toEqual([0, 1, 2].map((group) => {
      const name = ["alpha", "beta", "gamma"][group]!;
      return { rows: 4, times: { min: day + group * hourMs, max: day + group * hourMs + 3000 }, events: [name, `${name}_2`] };
    }));
  });

  test("all-null chunks have a null count and no min or max; empty strings and negatives are bounds", async () => {
    const edge = [
      storedEvent({ person_index: -7, properties: { amount: -0.25, plan: "" } }),
      storedEvent({ person_index: 3, properties: { amount: -1e300 } }),
      storedEvent({ person_index: 0, properties: { plan: "a" } }),
      storedEvent({ person_index: 5, properties: { other: "x" } }),
    ];
    const path = write(edge, 2);
    expect(await statisticsOf(path, ["anon_id", "person_index", "p_amount", "p_plan", "p_other"])).toEqual([
      [0n, "anon_id", 2n, null, null, null, null],
      [0n, "person_index", 0n, "-7", "3", true, true],
      [0n, "p_amount", 0n, "-1e+300", "-0.25", true, true],
      [0n, "p_plan", 1n, "", "", true, true],
      [0n, "p_other", 2n, null, null, null, null],
      [1n, "anon_id", 2n, null, null, null, null],
      [1n, "person_index", 0n, "0", "5", true, true],
      [1n, "p_amount", 2n, null, null, null, null],
      [1n, "p_plan", 1n, "a", "a", true, true],
      [1n, "p_other", 1n, "x", "x", true, true],
    ]);
    expect(await rows(`SELECT count(*) FROM '${path}' WHERE p_plan = ''`)).toEqual([[1n]]);
  });

  test("NaN is left out of the min, and a chunk with NaN has no max (none at all when every value is NaN); zeros are written -0.0 as a min and +0.0 as a max", async () => {
    const amounts = [[Number.NaN, 4, -2], [Number.NaN, Number.NaN, Number.NaN], [0, -0, 0]];
    const path = write(amounts.flat().map((amount) => storedEvent({ properties: { amount } })), 3);
    expect(await statisticsOf(path, ["p_amount"])).toEqual([
      [0n, "p_amount", 0n, "-2.0", null, true, null],
      [1n, "p_amount", 0n, null, null, null, null],
      [2n, "p_amount", 0n, "-0.0", "0.0", true, true],
    ]);
    // NaN rows are still found: DuckDB orders NaN above every number.
    expect(await rows(`SELECT count(*) FROM '${path}' WHERE p_amount > 100`)).toEqual([[4n]]);
    expect(await rows(`SELECT count(*) FROM '${path}' WHERE p_amount = 0`)).toEqual([[3n]]);
  });

  test("strings are ordered by their UTF-8 bytes, not UTF-16 units; long ones are cut to bounds marked inexact", async () => {
    const long = "a".repeat(statisticsValueBytesMax) + "zz";
    const wide = "é".repeat(statisticsValueBytesMax);
    const plans = ["ｚ", "😀", "a", "é", long, wide];
    // JavaScript's order puts U+FF5A (ｚ) after the surrogate pair of 😀; their UTF-8 bytes put 😀 last.
    expect([...plans].sort().at(-1)).toBe("ｚ");
    const path = write(plans.map((plan) => storedEvent({ properties: { plan, [`single_${plans.indexOf(plan)}`]: plan } })), plans.length);
    expect(await statisticsOf(path, ["p_plan", "p_single_4", "p_single_5"])).toEqual([
      [0n, "p_plan", 0n, "a", "😀", true, true],
      [0n, "p_single_4", 5n, "a".repeat(statisticsValueBytesMax), `${"a".repeat(statisticsValueBytesMax - 1)}b`, false, false],
      // 64 bytes of é is 32 of them; no ASCII byte to raise, so no max.
      [0n, "p_single_5", 5n, "é".repeat(statisticsValueBytesMax / 2), null, false, null],
    ]);
    expect(await rows(`SELECT count(*) FROM '${path}' WHERE p_single_4 = '${long}' OR p_single_5 = '${wide}' OR p_plan = '😀'`)).toEqual([[3n]]);
  });
});
