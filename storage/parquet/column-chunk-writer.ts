// One column of one row group as Parquet pages: data pages v1 (definition levels, then the
// present values), zstd-compressed, with a dictionary page first for dictionary-encoded
// strings. Encodings by column type: dictionary strings RLE_DICTIONARY (PLAIN past
// `dictionaryPageBytesMax`), other strings PLAIN in pages of about `dataPageBytesTarget`,
// doubles and booleans PLAIN, int32 and timestamps DELTA_BINARY_PACKED (the rows are sorted
// by person and time, so person indexes and each person's times climb in small steps).
import { Type, Utf8, makeData, type Data } from "apache-arrow";
import { int64At, int64Words } from "../arrow-vectors.ts";
import { bitWidthOf, BitPacker } from "./bit-packing.ts";
import { ByteWriter } from "./byte-writer.ts";
import { encodeDeltaBinaryPacked } from "./delta-binary-packed.ts";
import { Encoding, PageType, PhysicalType } from "./parquet-format.ts";
import {
  booleanStatistics, compareBytes, doubleStatistics, integerStatistics, nullsOnly, stringStatistics, type ColumnStatistics,
} from "./statistics.ts";
import { encodeDefinitionLevels, encodeHybrid } from "./rle-hybrid.ts";
import { ThriftWriter } from "./thrift-compact.ts";

/** Plain string pages are cut once their values pass this size (readers decode a page at once). */
export const dataPageBytesTarget = 1024 * 1024;
/** A dictionary larger than this is not worth its page: the column chunk is written PLAIN instead. */
export const dictionaryPageBytesMax = 8 * 1024 * 1024;
/** zstd level: on event columns level 1 compressed as well as 3 and 40% faster (measured). */
export const zstdLevel = 1;


/** What the footer records of a written column chunk. */
export interface ColumnChunkMeta {
  physicalType: number;
  encodings: number[];
  values: number;
  uncompressedBytes: number;
  compressedBytes: number;
  dataPageOffset: number;
  dictionaryPageOffset: number | null;
  statistics: ColumnStatistics;
  /**
   * The distinct values present, in unsigned bytewise order, when asked for and the chunk is
   * dictionary-encoded with at most `listedValuesBytesMax` bytes of them; else null.
   */
  listedValues: string[] | null;
}

/** A chunk whose present values take more bytes than this has them not listed (the footer would grow past use). */
export const listedValuesBytesMax = 16 * 1024;


/** The validity of rows [start, start + rows) as a bitmap starting at bit 0, or null when none is null. */
function validityOf(data: Data, start: number, rows: number): Uint8Array | null {
  if (data.nullCount === 0 || !data.nullBitmap || data.nullBitmap.byteLength === 0) return null;
  const first = data.offset + start;
  if (first % 8 === 0) return data.nullBitmap.subarray(first / 8, first / 8 + Math.ceil(rows / 8));
  const aligned = new Uint8Array(Math.ceil(rows / 8));
  for (let row = 0; row < rows; row++) {
    const bit = first + row;
    if ((data.nullBitmap[bit >> 3]! >> (bit & 7)) & 1) aligned[row >> 3]! |= 1 << (row & 7);
  }
  return aligned;
}

const isPresent = (validity: Uint8Array | null, row: number) => validity === null || ((validity[row >> 3]! >> (row & 7)) & 1) === 1;

function countPresent(validity: Uint8Array | null, rows: number): number {
  if (validity === null) return rows;
  let present = 0;
  for (let row = 0; row < rows; row++) present += (validity[row >> 3]! >> (row & 7)) & 1;
  return present;
}

/**
 * Rows [start, end) of a dictionary array as a plain string array starting at row 0 (the
 * fallback for a dictionary too large for its page).
 */
function dictionaryAsPlain(data: Data, validity: Uint8Array | null, start: number, end: number): Data {
  const chunks = data.dictionary!.data;
  const wordStarts: number[] = [];
  const wordEnds: number[] = [];
  const wordBytes: Uint8Array[] = [];
  for (const words of chunks) {
    const offsets = words.valueOffsets as Int32Array;
    for (let i = words.offset; i < words.offset + words.length; i++) {
      wordStarts.push(offsets[i]!);
      wordEnds.push(offsets[i + 1]!);
      wordBytes.push(words.values as Uint8Array);
    }
  }
  const codes = data.values as Int32Array;
  const rows = end - start;
  const valueOffsets = new Int32Array(rows + 1);
  for (let row = 0; row < rows; row++) {
    const code = codes[data.offset + start + row]!;
    valueOffsets[row + 1] = valueOffsets[row]! + (isPresent(validity, row) ? wordEnds[code]! - wordStarts[code]! : 0);
  }
  const bytes = new Uint8Array(valueOffsets[rows]!);
  for (let row = 0; row < rows; row++) {
    if (!isPresent(validity, row)) continue;
    const code = codes[data.offset + start + row]!;
    bytes.set(wordBytes[code]!.subarray(wordStarts[code]!, wordEnds[code]!), valueOffsets[row]!);
  }
  const nullCount = rows - countPresent(validity, rows);
  return makeData({ type: new Utf8(), length: rows, nullCount, nullBitmap: nullCount === 0 ? undefined : validity!, valueOffsets, data: bytes });
}

/** Rows [start, end) of the column present, as indexes into its value buffers (offset applied). */
function presentRows(data: Data, validity: Uint8Array | null, start: number, end: number): Int32Array {
  const rows = new Int32Array(end - start);
  let count = 0;
  if (validity === null) for (let row = start; row < end; row++) rows[count++] = data.offset + row;
  else for (let row = start; row < end; row++) if (((validity[(row - start) >> 3]! >> ((row - start) & 7)) & 1) === 1) rows[count++] = data.offset + row;
  return rows.subarray(0, count);
}

const textDecoder = new TextDecoder();

/**
 * The statistics of a dictionary chunk from the dictionary entries its rows use (`codes`, of
 * present rows; the dictionary may hold words of other row groups too), and those entries as
 * text when `listValues` asks and they fit `listedValuesBytesMax`.
 */
function usedWordsSummary(
  dictionary: readonly Data[], entries: number, codes: Int32Array, nullCount: number, listValues: boolean,
): { statistics: ColumnStatistics; listedValues: string[] | null } {
  const used = new Uint8Array(entries);
  for (let i = 0; i < codes.length; i++) used[codes[i]!] = 1;
  const words: Uint8Array[] = [];
  let entry = 0;
  for (const chunk of dictionary) {
    const offsets = chunk.valueOffsets as Int32Array;
    const bytes = chunk.values as Uint8Array;
    for (let i = chunk.offset; i < chunk.offset + chunk.length; i++, entry++) {
      if (used[entry] === 1) words.push(bytes.subarray(offsets[i]!, offsets[i + 1]!));
    }
  }
  if (words.length === 0) return { statistics: nullsOnly(nullCount), listedValues: listValues ? [] : null };
  const order = (x: Uint8Array, y: Uint8Array) => compareBytes(x, 0, x.byteLength, y, 0, y.byteLength);
  let [min, max] = [words[0]!, words[0]!];
  for (const word of words) {
    if (order(word, min) < 0) min = word;
    if (order(word, max) > 0) max = word;
  }
  const listed = listValues && words.reduce((sum, word) => sum + word.byteLength, 0) <= listedValuesBytesMax;
  return { statistics: stringStatistics(min, max, nullCount), listedValues: listed ? words.sort(order).map((word) => textDecoder.decode(word)) : null };
}

/** Page size limits (the defaults above; tests lower them to reach their edges with small data). */
export interface PageLimits {
  dataPageBytesTarget: number;
  dictionaryPageBytesMax: number;
}

export const defaultPageLimits: PageLimits = { dataPageBytesTarget, dictionaryPageBytesMax };

/** Appends column chunks' pages to a file being written. */
export class ColumnChunkWriter {
  private uncompressed = 0;
  private compressed = 0;
  private firstDataPage = -1;
  /** Page bodies are built here one at a time (each is compressed before the next starts). */
  private readonly body = new ByteWriter(256 * 1024);

  constructor(private readonly file: ByteWriter, private readonly limits: PageLimits = defaultPageLimits) {}

  private page(type: number, body: Uint8Array, header: (writer: ThriftWriter) => void): number {
    const compressedBody = Bun.zstdCompressSync(body, { level: zstdLevel });
    const thrift = new ThriftWriter(new ByteWriter(64))
      .i32(1, type)
      .i32(2, body.byteLength)
      .i32(3, compressedBody.byteLength);
    header(thrift);
    const at = this.file.append(thrift.end());
    this.file.append(compressedBody);
    const headerBytes = this.file.length - at - compressedBody.byteLength;
    this.uncompressed += headerBytes + body.byteLength;
    this.compressed += headerBytes + compressedBody.byteLength;
    return at;
  }

  private dataPage(body: ByteWriter, rows: number, encoding: number): void {
    const at = this.page(PageType.dataPage, body.written(), (writer) =>
      writer.struct(5, (page) => page.i32(1, rows).i32(2, encoding).i32(3, Encoding.rle).i32(4, Encoding.rle)),
    );
    if (this.firstDataPage < 0) this.firstDataPage = at;
  }

  private dictionaryPage(body: Uint8Array, entries: number): number {
    return this.page(PageType.dictionaryPage, body, (writer) => writer.struct(7, (page) => page.i32(1, entries).i32(2, Encoding.plain)));
  }

  private finish(
    physicalType: number, encodings: number[], rows: number, dictionaryPageOffset: number | null, statistics: ColumnStatistics, listedValues: string[] | null = null,
  ): ColumnChunkMeta {
    const meta: ColumnChunkMeta = {
      physicalType, encodings, values: rows, uncompressedBytes: this.uncompressed, compressedBytes: this.compressed,
      dataPageOffset: this.firstDataPage, dictionaryPageOffset, statistics, listedValues,
    };
    this.uncompressed = 0;
    this.compressed = 0;
    this.firstDataPage = -1;
    return meta;
  }

  /**
   * Writes rows [start, end) of `data` (an Arrow array of a type event files hold) as one
   * column chunk; `listValues`: also list its distinct values (dictionary strings only).
   */
  write(data: Data, start: number, end: number, listValues = false): ColumnChunkMeta {
    const rows = end - start;
    const validity = validityOf(data, start, rows);
    const nullCount = rows - countPresent(validity, rows);
    switch (data.type.typeId) {
      case Type.Utf8:
        return this.plainStrings(data, validity, start, end, nullCount);
      case Type.Dictionary:
        return this.dictionaryStrings(data, validity, start, end, nullCount, listValues);
      case Type.Float:
        return this.doubles(data, validity, start, end, nullCount);
      case Type.Bool:
        return this.booleans(data, validity, start, end, nullCount);
      case Type.Int:
        return this.integers(data, validity, start, end, nullCount, "int32");
      case Type.Timestamp:
        return this.integers(data, validity, start, end, nullCount, "int64");
      default:
        throw new Error(`Arrow type ${String(data.type)} is not one event files hold`);
    }
  }

  /** The page body, emptied and holding the definition levels of rows [first, first + rows) of `validity`. */
  private levels(validity: Uint8Array | null, first: number, rows: number, valueBytes: number): ByteWriter {
    const body = this.body;
    body.reset();
    body.reserve(valueBytes + Math.ceil(rows / 8) + 16);
    encodeDefinitionLevels(validity, first, rows, body);
    return body;
  }

  private plainStrings(data: Data, validity: Uint8Array | null, start: number, end: number, nullCount: number): ColumnChunkMeta {
    const offsets = data.valueOffsets as Int32Array;
    const bytes = data.values as Uint8Array;
    // The rows (offset applied) of the least and greatest present values, -1 while none is seen.
    let minRow = -1;
    let maxRow = -1;
    let pageStart = start;
    while (pageStart < end || pageStart === start) {
      // Rows up to the page's size target (at least one row, and page starts on a byte of the bitmap).
      let pageEnd = pageStart;
      let valueBytes = 0;
      while (pageEnd < end && (valueBytes < this.limits.dataPageBytesTarget || (pageEnd - start) % 8 !== 0)) {
        const row = data.offset + pageEnd;
        if (isPresent(validity, pageEnd - start)) valueBytes += 4 + offsets[row + 1]! - offsets[row]!;
        pageEnd++;
      }
      const body = this.levels(validity, pageStart - start, pageEnd - pageStart, valueBytes);
      body.reserve(valueBytes);
      for (let index = pageStart; index < pageEnd; index++) {
        if (!isPresent(validity, index - start)) continue;
        const row = data.offset + index;
        const from = offsets[row]!;
        const to = offsets[row + 1]!;
        body.uint32(to - from);
        body.appendRange(bytes, from, to);
        if (minRow < 0 || compareBytes(bytes, from, to, bytes, offsets[minRow]!, offsets[minRow + 1]!) < 0) minRow = row;
        if (maxRow < 0 || compareBytes(bytes, from, to, bytes, offsets[maxRow]!, offsets[maxRow + 1]!) > 0) maxRow = row;
      }
      this.dataPage(body, pageEnd - pageStart, Encoding.plain);
      pageStart = pageEnd;
      if (pageEnd === end) break;
    }
    const valueAt = (row: number) => (row < 0 ? null : bytes.subarray(offsets[row]!, offsets[row + 1]!));
    return this.finish(PhysicalType.byteArray, [Encoding.rle, Encoding.plain], end - start, null, stringStatistics(valueAt(minRow), valueAt(maxRow), nullCount));
  }

  private dictionaryStrings(data: Data, validity: Uint8Array | null, start: number, end: number, nullCount: number, listValues: boolean): ColumnChunkMeta {
    const dictionary = data.dictionary!.data;
    let dictionaryBytes = 0;
    let entries = 0;
    for (const words of dictionary) {
      const offsets = words.valueOffsets as Int32Array;
      dictionaryBytes += 4 * words.length + offsets[words.offset + words.length]! - offsets[words.offset]!;
      entries += words.length;
    }
    if (dictionaryBytes > this.limits.dictionaryPageBytesMax) {
      const plain = dictionaryAsPlain(data, validity, start, end);
      return this.plainStrings(plain, validityOf(plain, 0, end - start), 0, end - start, nullCount);
    }
    const page = this.body;
    page.reset();
    page.reserve(dictionaryBytes);
    for (const words of dictionary) {
      const offsets = words.valueOffsets as Int32Array;
      const bytes = words.values as Uint8Array;
      for (let i = words.offset; i < words.offset + words.length; i++) {
        page.uint32(offsets[i + 1]! - offsets[i]!);
        page.appendRange(bytes, offsets[i]!, offsets[i + 1]!);
      }
    }
    const dictionaryPageOffset = this.dictionaryPage(page.written(), entries);
    const codes = data.values as Int32Array;
    const present = presentRows(data, validity, start, end);
    const values = new Int32Array(present.length);
    for (let i = 0; i < present.length; i++) values[i] = codes[present[i]!]!;
    const width = bitWidthOf(Math.max(0, entries - 1));
    const body = this.levels(validity, 0, end - start, 1 + Math.ceil((values.length * width) / 8) + 16);
    body.byte(width);
    encodeHybrid(values, values.length, width, body);
    this.dataPage(body, end - start, Encoding.rleDictionary);
    const { statistics, listedValues } = usedWordsSummary(dictionary, entries, values, nullCount, listValues);
    return this.finish(PhysicalType.byteArray, [Encoding.rle, Encoding.plain, Encoding.rleDictionary], end - start, dictionaryPageOffset, statistics, listedValues);
  }

  private doubles(data: Data, validity: Uint8Array | null, start: number, end: number, nullCount: number): ColumnChunkMeta {
    const source = data.values as Float64Array;
    const present = presentRows(data, validity, start, end);
    const values = new Float64Array(present.length);
    for (let i = 0; i < present.length; i++) values[i] = source[present[i]!]!;
    const body = this.levels(validity, 0, end - start, 8 * values.length);
    body.append(new Uint8Array(values.buffer));
    this.dataPage(body, end - start, Encoding.plain);
    return this.finish(PhysicalType.double, [Encoding.rle, Encoding.plain], end - start, null, doubleStatistics(values, nullCount));
  }

  private booleans(data: Data, validity: Uint8Array | null, start: number, end: number, nullCount: number): ColumnChunkMeta {
    const bits = data.values as Uint8Array;
    const present = presentRows(data, validity, start, end);
    const body = this.levels(validity, 0, end - start, Math.ceil(present.length / 8));
    const packer = new BitPacker(body);
    let trues = 0;
    for (let i = 0; i < present.length; i++) {
      const bit = (bits[present[i]! >> 3]! >> (present[i]! & 7)) & 1;
      packer.write(bit, 1);
      trues += bit;
    }
    packer.flush();
    this.dataPage(body, end - start, Encoding.plain);
    return this.finish(PhysicalType.boolean, [Encoding.rle, Encoding.plain], end - start, null, booleanStatistics(trues < present.length, trues > 0, nullCount));
  }

  private integers(data: Data, validity: Uint8Array | null, start: number, end: number, nullCount: number, physical: "int32" | "int64"): ColumnChunkMeta {
    const present = presentRows(data, validity, start, end);
    const values = new Float64Array(present.length);
    if (physical === "int32") {
      const source = data.values as Int32Array;
      for (let i = 0; i < present.length; i++) values[i] = source[present[i]!]!;
    } else {
      const words = int64Words(data.values as BigInt64Array);
      for (let i = 0; i < present.length; i++) values[i] = int64At(words, present[i]!);
    }
    const body = this.levels(validity, 0, end - start, 8 * values.length);
    encodeDeltaBinaryPacked(values, values.length, physical, body);
    this.dataPage(body, end - start, Encoding.deltaBinaryPacked);
    return this.finish(
      physical === "int32" ? PhysicalType.int32 : PhysicalType.int64, [Encoding.rle, Encoding.deltaBinaryPacked], end - start, null,
      integerStatistics(values, values.length, nullCount, physical),
    );
  }
}
