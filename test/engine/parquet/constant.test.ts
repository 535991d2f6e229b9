// A number column with one value in every row is known from the footer and the dictionary
// pages: storage's parts with one sample rate throughout, also across row groups; any other
// value, a null or another column type gives null (the rows must then be decoded).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tableToIPC } from "apache-arrow";
import { Compression, Table as WasmTable, WriterPropertiesBuilder, writeParquet } from "parquet-wasm";
import { constantNumber } from "../../../engine/parquet/constant.ts";
import { readFooter } from "../../../engine/parquet/footer.ts";
import { writeParquetPart } from "../../../storage/data-files.ts";
import { encodeParquetFile } from "../../../storage/parquet/parquet-file-writer.ts";
import { eventsToTable } from "../../../storage/event-buffer.ts";
import { storedEvent } from "../../storage/fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "parquet-constant-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const rates = (values: number[]) => values.map((sample_rate, i) => storedEvent({ sample_rate, properties: { price: i % 2 === 0 ? 1.5 : null } }));

/**
 * A part of events with these sample rates, written by storage (in row groups of `groupRows`
 * when given), or by parquet-wasm (dictionary pages and no min and max), and what
 * constantNumber makes of a column.
 */
function constantOf(values: number[], column: string, groupRows?: number, writer: "storage" | "parquet-wasm" = "parquet-wasm"): number | null {
  const path = join(dir, `part-${++files}.parquet`);
  const table = eventsToTable(rates(values));
  if (groupRows === undefined) writeParquetPart(path, table);
  else if (writer === "storage") writeFileSync(path, encodeParquetFile(table, groupRows));
  else writeFileSync(path, writeParquet(WasmTable.fromIPCStream(tableToIPC(table, "stream")), new WriterPropertiesBuilder().setCompression(Compression.ZSTD).setMaxRowGroupSize(groupRows).build()));
  return constantNumber(path, readFooter(path), column);
}

test("one sample rate throughout, in one row group or several, by statistics or by dictionary pages", () => {
  expect(constantOf([1, 1, 1], "sample_rate")).toBe(1);
  expect(constantOf([0.25, 0.25], "sample_rate")).toBe(0.25);
  expect(constantOf([0.5, 0.5, 0.5, 0.5], "sample_rate", 2)).toBe(0.5);
  expect(constantOf([0.5, 0.5, 0.5, 0.5], "sample_rate", 2, "storage")).toBe(0.5);
});

test("by statistics: another value in a later row group, or a zero whose sign they cannot tell", () => {
  expect(constantOf([0.5, 0.5, 1, 1], "sample_rate", 2, "storage")).toBeNull();
  expect(constantOf([0.5, 1, 0.5, 0.5], "sample_rate", 2, "storage")).toBeNull();
  expect(constantOf([0, -0, 0], "sample_rate", 3, "storage")).toBeNull();
});

test("other values, in a row group or across them, nulls and other columns give null", () => {
  expect(constantOf([1, 0.5, 1], "sample_rate")).toBeNull();
  expect(constantOf([0.5, 0.5, 1, 1], "sample_rate", 2)).toBeNull();
  expect(constantOf([1, 1, 1], "p_price")).toBeNull();
  expect(constantOf([1, 1], "event")).toBeNull();
  expect(constantOf([1, 1], "absent")).toBeNull();
});
