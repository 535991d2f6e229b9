// What a part's footer says each row group holds, for deciding before reading whether a query
// needs the part (row-group-pruning.ts): the timestamp range from the timestamp chunk's
// statistics, and the events from the footer's listed values (storage/parquet/listed-values.ts).
// Summaries are kept per path (parts never change), with the part's column types, so a query
// that skips a part needs nothing else from it and a warm query reads no footer at all.
import type { ColumnType } from "../chunk-store.ts";
import { listedValuesKey } from "../../storage/parquet/listed-values.ts";
import { readFooter, type Footer } from "./footer.ts";
import { ParquetUnsupportedError } from "./unsupported.ts";

export interface RowGroupSummary {
  rows: number;
  /** Least and greatest timestamp (epoch ms), or null when the statistics do not bound every row. */
  times: { min: number; max: number } | null;
  /** The events its rows have, or null when the footer does not list them. */
  events: ReadonlySet<string> | null;
}

export interface PartSummary {
  rowGroups: RowGroupSummary[];
  /** Column names and types, as the ChunkStore reads them from this footer (shared between parts: not to be changed). */
  schema: Map<string, ColumnType>;
}

/** Summaries kept (a few hundred bytes each, schemas shared): past it the oldest goes and is read again if needed. */
export const partSummariesMax = 16 * 1024;

const timestampColumn = "timestamp";
const eventColumn = "event";

function int64(bytes: Uint8Array | null): number | null {
  if (bytes === null || bytes.byteLength !== 8) return null;
  return Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigInt64(0, true));
}

/** Each row group's listed events, or nulls when the entry is absent or not of the shape written. */
function listedEvents(footer: Footer): (ReadonlySet<string> | null)[] {
  const unknown = footer.rowGroups.map(() => null);
  const text = footer.keyValues.get(listedValuesKey(eventColumn));
  if (text === undefined) return unknown;
  let listed: unknown;
  try {
    listed = JSON.parse(text);
  } catch {
    return unknown;
  }
  if (!Array.isArray(listed) || listed.length !== footer.rowGroups.length) return unknown;
  return listed.map((values) => (Array.isArray(values) && values.every((value) => typeof value === "string") ? new Set(values as string[]) : null));
}

/** The summary of a parsed footer (the schema left for the caller). */
export function summarizeRowGroups(footer: Footer): RowGroupSummary[] {
  const time = footer.columns.findIndex((column) => column.name === timestampColumn && column.type === "timestamp");
  const events = listedEvents(footer);
  return footer.rowGroups.map((group, index) => {
    const chunk = time < 0 ? null : group.chunks[time]!;
    const [min, max] = [int64(chunk?.min ?? null), int64(chunk?.max ?? null)];
    const bounded = chunk !== null && chunk.nullCount === 0 && min !== null && max !== null;
    return { rows: group.rows, times: bounded ? { min, max } : null, events: events[index]! };
  });
}

const summaries = new Map<string, PartSummary | null>();
/** Schemas by their columns' names and types: parts of a partition mostly share one. */
const schemas = new Map<string, Map<string, ColumnType>>();

function sharedSchema(footer: Footer): Map<string, ColumnType> {
  const key = footer.columns.map((column) => `${column.name}\u0000${column.type}`).join("\u0001");
  let schema = schemas.get(key);
  if (!schema) {
    schema = new Map(footer.columns.map((column) => [column.name, column.type] as const));
    schemas.set(key, schema);
    if (schemas.size > partSummariesMax) schemas.delete(schemas.keys().next().value!);
  }
  return schema;
}

/** The summary of the part at `path`, or null when our reader does not parse its footer (nothing can be skipped). */
export function partSummary(path: string): PartSummary | null {
  if (summaries.has(path)) return summaries.get(path)!;
  let summary: PartSummary | null = null;
  try {
    const footer = readFooter(path);
    summary = { rowGroups: summarizeRowGroups(footer), schema: sharedSchema(footer) };
  } catch (error) {
    if (!(error instanceof ParquetUnsupportedError)) throw error;
  }
  summaries.set(path, summary);
  if (summaries.size > partSummariesMax) summaries.delete(summaries.keys().next().value!);
  return summary;
}
