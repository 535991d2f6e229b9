// One query's view of the data: which chunks it reads, how each property is typed for this
// query, and each chunk's columns shaped for the executor (canonical persons, property values
// as number or text, person properties gathered onto events). Chunks are loaded one at a
// time through the ChunkStore, so memory follows the cache, not the range.
import {
  jsonAsText, nullNumberColumn, nullTextColumn, numbersAsText, valueText, type Column, type TextColumn,
} from "./columns.ts";
import { mayHoldRange, sampleRateColumn, type ChunkRef, type ChunkStore, type ColumnType } from "./chunk-store.ts";
import { partSummary } from "./parquet/row-group-summary.ts";
import { partMayHold } from "./parquet/row-group-pruning.ts";
import { personSlotBytesMax } from "./person-slots.ts";
import { readScope } from "./read-scope.ts";
import { answerCellsMax } from "./answer-size.ts";
import { propertyKeys } from "./property-keys.ts";
import type { Filter, Query } from "./ir/query.ts";

/**
 * Cells (values x buckets, summed over the series) of trends' single pass by breakdown value:
 * each cell takes three 8-byte slots (sums, weights, extremes), so 2^21 cells bound it to
 * about 48 MB. A query past it ranks its values in a pass of its own instead.
 */
export const trendsValueCellsMax = 1 << 21;

/** Person state the executor needs from the person store. */
export interface PersonSource {
  /** canonical[i] = the surviving person of index i. */
  canonical: Int32Array;
  /** Every person's value of a property, keyed by canonical person index (persons without it are left out). */
  propertyValues(key: string): Map<number, unknown>;
  /** When each current person was created, by canonical person index (NaN for others). */
  createdTimes(): Float64Array;
  /** A cohort's members as stored in the environment (person indexes, sorted), or null when it has none stored. */
  cohortMembers(cohortId: string): Int32Array | null;
}

export interface QuerySource {
  store: ChunkStore;
  chunks: ChunkRef[];
  persons: PersonSource;
}

export type ValueKind = "number" | "text";

/** Spec 2, Limits: rows read per query (operators may set a lower bound). */
export const queryRowsMax = 500_000_000;

export class QueryLimitError extends Error {
  constructor(readonly code: "query_too_large" | "timeout", message: string) {
    super(message);
  }
}

export const propertyColumn = (key: string) => `p_${key}`;
export const mixedPropertyColumn = (key: string) => `pj_${key}`;

/** Where a property's values come from in one chunk, as the SQL compiler needs to know too. */
export type PropertySource = ColumnType | "json" | "absent";

export function propertySource(schema: Map<string, ColumnType>, key: string): PropertySource {
  const typed = schema.get(propertyColumn(key));
  if (typed) return typed;
  return schema.has(mixedPropertyColumn(key)) ? "json" : "absent";
}

/** A property's column as one chunk stores it (mixed-type JSON read as text), or null when the chunk lacks it. */
export function storedProperty(schema: Map<string, ColumnType>, decoded: Map<string, unknown>, key: string): Column | null {
  const source = propertySource(schema, key);
  if (source === "absent") return null;
  if (source === "json") return jsonAsText(decoded.get(mixedPropertyColumn(key)) as TextColumn);
  return decoded.get(propertyColumn(key)) as Column;
}

/** A property is a number for this query when every chunk that has it stores numbers; else text. */
export function propertyKind(sources: PropertySource[]): ValueKind {
  const present = sources.filter((source) => source !== "absent");
  return present.length > 0 && present.every((source) => source === "number") ? "number" : "text";
}

/** Each person's value as one column over person indexes (number when every value is a number). */
export function personColumn(values: Map<number, unknown>, size: number): { kind: ValueKind; column: Column } {
  const all = [...values.values()];
  if (all.length > 0 && all.every((value) => typeof value === "number")) {
    const column = nullNumberColumn(size);
    for (const [person, value] of values) {
      column.values[person] = value as number;
      column.present![person] = 1;
    }
    return { kind: "number", column };
  }
  const column = nullTextColumn(size);
  const codes = new Map<string, number>();
  for (const [person, value] of values) {
    const text = valueText(value);
    let code = codes.get(text);
    if (code === undefined) {
      code = column.words.length;
      codes.set(text, code);
      column.words.push(text);
    }
    column.codes[person] = code;
  }
  return { kind: "text", column };
}

/** Rows of a chunk gathered through each row's person: person column values per event. */
function gatherByPerson(column: Column, persons: Int32Array): Column {
  const size = column.kind === "text" ? column.codes.length : column.values.length;
  if (column.kind === "text") {
    const codes = new Int32Array(persons.length);
    for (let row = 0; row < persons.length; row++) {
      const person = persons[row]!;
      codes[row] = person < size ? column.codes[person]! : -1;
    }
    return { kind: "text", codes, words: column.words };
  }
  const values = new Float64Array(persons.length);
  const present = new Uint8Array(persons.length);
  for (let row = 0; row < persons.length; row++) {
    const person = persons[row]!;
    if (person < size && column.present![person] === 1) {
      values[row] = column.values[person]!;
      present[row] = 1;
    }
  }
  return { kind: "number", values, present };
}

/** One chunk's columns for one query. */
export class LoadedChunk {
  private personRows: Int32Array | null = null;
  constructor(
    readonly ref: ChunkRef,
    private readonly data: QueryData,
    private readonly decoded: Map<string, unknown>,
    private readonly schema: Map<string, ColumnType>,
    /** 1 / sample rate of each row, or null when every row was kept unsampled (or the query does not weight rows). */
    readonly weights: Float64Array | null,
  ) {}

  get rows(): number {
    return this.ref.rows;
  }

  get timestamps(): Float64Array {
    return this.decoded.get("timestamp") as Float64Array;
  }


  /** Each row's canonical person (merges applied). */
  get persons(): Int32Array {
    if (!this.personRows) {
      this.personRows = this.data.source.store.persons(this.ref, this.decoded.get("person_index") as Int32Array, this.data.source.persons.canonical);
    }
    return this.personRows;
  }

  /** A fixed column as text (event, session_id, $group_0, geo_country, ...; is_suspect reads "true"/"false"). */
  text(name: string): TextColumn {
    return (this.decoded.get(name) as TextColumn | undefined) ?? nullTextColumn(this.rows);
  }

  eventProperty(key: string): Column {
    const kind = this.data.kindOf(key);
    const column = storedProperty(this.schema, this.decoded, key);
    if (column === null) return kind === "number" ? nullNumberColumn(this.rows) : nullTextColumn(this.rows);
    return kind === "text" && column.kind === "number" ? numbersAsText(column) : column;
  }

  personProperty(key: string): Column {
    return gatherByPerson(this.data.personProperty(key).column, this.persons);
  }

  /** The column a filter reads. */
  filterColumn(filter: Filter): Column {
    if (filter.type === "event") return this.eventProperty(filter.key);
    if (filter.type === "person") return this.personProperty(filter.key);
    return this.text(filter.key);
  }
}

/** The chunks, property kinds and person columns of one query run. */
export class QueryData {
  /**
   * Every chunk of the query's range (what its SQL reads): property types are settled over
   * these, read or not, so skipping parts changes no answer.
   */
  readonly chunks: ChunkRef[];
  /** The chunks the executor reads: `chunks` less parts whose footer shows they hold none of the query's rows (read-scope.ts). */
  readonly chunksToRead: ChunkRef[];
  private readonly kinds = new Map<string, ValueKind>();
  private readonly personColumns = new Map<string, { kind: ValueKind; column: Column }>();
  private schemas = new Map<string, Map<string, ColumnType>>();
  rowsRead = 0;

  constructor(
    readonly source: QuerySource,
    readonly query: Query,
    private readonly limits: {
      rowsMax: number; deadline: number; personSlotBytesMax?: number; trendsValueCellsMax?: number; answerCellsMax?: number; readEveryPart?: boolean;
    },
  ) {
    // Parts hold one UTC day each: days outside the range are never opened.
    this.chunks = source.chunks.filter((ref) => mayHoldRange(ref, query.scanFrom, query.to));
    const scope = readScope(query);
    this.chunksToRead = limits.readEveryPart ? this.chunks : this.chunks.filter((ref) => ref.kind !== "part" || partMayHold(ref.path, scope));
  }

  /** Reads every chunk's schema and types the properties the query names; checks the rows limit. */
  async prepare(eventProperties: string[]): Promise<void> {
    const rows = this.chunksToRead.reduce((sum, ref) => sum + ref.rows, 0);
    if (rows > this.limits.rowsMax) {
      throw new QueryLimitError("query_too_large", `the query would read ${rows} rows; at most ${this.limits.rowsMax} (narrow the date range)`);
    }
    const reading = new Set(this.chunksToRead);
    for (const ref of this.chunks) {
      // A skipped part's types come from the summary that skipped it (it has one: partMayHold said false).
      this.schemas.set(ref.id, reading.has(ref) ? await this.source.store.schema(ref) : partSummary((ref as { path: string }).path)!.schema);
    }
    for (const key of eventProperties) {
      this.kinds.set(key, propertyKind(this.chunks.map((ref) => propertySource(this.schemas.get(ref.id)!, key))));
    }
  }

  /** Memory bound of one pass of per-person interval bitsets (lifecycle, stickiness). */
  get personSlotBytesMax(): number {
    return this.limits.personSlotBytesMax ?? personSlotBytesMax;
  }

  /** Cells of trends' single pass by breakdown value, over all its series. */
  get trendsValueCellsMax(): number {
    return this.limits.trendsValueCellsMax ?? trendsValueCellsMax;
  }

  /** Every event property key with a column in some chunk of the partition, in range or not. */
  async allEventPropertyKeys(): Promise<string[]> {
    const keys = new Set<string>();
    for (const ref of this.source.chunks) for (const key of propertyKeys(await this.source.store.schema(ref))) keys.add(key);
    return [...keys];
  }

  /** Values an answer may hold (answer-size.ts). */
  get answerCellsMax(): number {
    return this.limits.answerCellsMax ?? answerCellsMax;
  }

  kindOf(key: string): ValueKind {
    return this.kinds.get(key) ?? "text";
  }

  schemaOf(ref: ChunkRef): Map<string, ColumnType> {
    return this.schemas.get(ref.id)!;
  }

  personProperty(key: string): { kind: ValueKind; column: Column } {
    let found = this.personColumns.get(key);
    if (!found) {
      const values = this.source.persons.propertyValues(key);
      let size = this.source.persons.canonical.length;
      for (const person of values.keys()) size = Math.max(size, person + 1);
      found = personColumn(values, size);
      this.personColumns.set(key, found);
    }
    return found;
  }

  /**
   * Loads a chunk's columns (`names` are file column names; absent ones are skipped). The
   * sample rate column stands for the rows' weights, which the store may know without decoding it.
   */
  async load(ref: ChunkRef, names: string[]): Promise<LoadedChunk> {
    if (Date.now() > this.limits.deadline) throw new QueryLimitError("timeout", "the query ran past its time limit");
    this.rowsRead += ref.rows;
    const weighted = names.includes(sampleRateColumn);
    const columns = weighted ? names.filter((name) => name !== sampleRateColumn) : names;
    // Kinds read chunks in order: decode workers start on the ones after this.
    const index = this.chunksToRead.indexOf(ref);
    if (index >= 0) this.source.store.readAhead(this.chunksToRead.slice(index + 1), columns);
    const decoded = await this.source.store.columns(ref, columns);
    const weights = weighted ? await this.source.store.weights(ref) : null;
    return new LoadedChunk(ref, this, decoded, this.schemaOf(ref), weights);
  }
}
