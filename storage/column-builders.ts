// Growable Arrow columns filled value by value: the storage worker appends each event's
// values straight from the parsed WAL record, and a seal turns the buffers into Arrow data
// without copying them (no per-value work at seal time). `finish()` leaves a builder usable,
// so a query can snapshot unsealed rows while more arrive: the arrays it returns view the
// builder's memory, which is safe because a builder only ever writes past its last row (a
// bitmap's last byte gains bits past the rows the view covers, which no reader looks at), and
// growing moves it to new memory, leaving the old for the views. `truncate` takes back rows
// appended since the last view (a WAL record that failed halfway: event-buffer.ts), so views
// never see rows change.
import {
  Bool, Dictionary, Float64, Int32, TimestampMillisecond, Utf8, makeData, makeVector, type Data,
} from "apache-arrow";
import { WordIds } from "./word-ids.ts";

const initialRows = 1024;
const initialTextBytes = 16 * 1024;
/** A dictionary's words start small: most columns hold a handful (event names, countries). */
const initialWordBytes = 256;
const twoTo32 = 2 ** 32;

function grown<T extends Int32Array | Float64Array | Uint8Array>(array: T, needed: number): T {
  if (needed <= array.length) return array;
  let size = array.length * 2;
  while (size < needed) size *= 2;
  const bigger = new (array.constructor as new (length: number) => T)(size);
  bigger.set(array);
  return bigger;
}

/**
 * The first `length` elements of `array`: a view of it, or a new array when nulls appended
 * past the end of the values written so far made the column longer than its array (zeros).
 */
function firstElements<T extends Int32Array | Float64Array | Uint8Array>(array: T, length: number): T {
  if (length <= array.length) return array.subarray(0, length) as T;
  const copy = new (array.constructor as new (length: number) => T)(length);
  copy.set(array);
  return copy;
}

/** The validity bitmap of a column (bit set = value present) and its row count. */
abstract class ColumnBuilder {
  length = 0;
  /** Rows holding a value (not null). */
  present = 0;
  private validity = new Uint8Array(initialRows >> 3);

  /** Marks row `length` present and moves on; subclasses store the value first. */
  protected markPresent(): void {
    const row = this.length++;
    if (row >> 3 >= this.validity.length) this.validity = grown(this.validity, (row >> 3) + 1);
    this.validity[row >> 3]! |= 1 << (row & 7);
    this.present++;
  }

  appendNull(): void {
    const row = this.length++;
    if (row >> 3 >= this.validity.length) this.validity = grown(this.validity, (row >> 3) + 1);
  }

  /** Appends nulls until the column has `rows` rows. */
  padTo(rows: number): void {
    while (this.length < rows) this.appendNull();
  }

  isPresent(row: number): boolean {
    return (this.validity[row >> 3]! & (1 << (row & 7))) !== 0;
  }

  /**
   * Drops the rows from `rows` on, so the next append writes row `rows` again. Only rows no
   * view covers may go: those appended since the last finish() (appends and snapshots never
   * interleave in the storage worker).
   */
  truncate(rows: number): void {
    for (let row = rows; row < this.length; row++) {
      if (!this.isPresent(row)) continue;
      this.validity[row >> 3]! &= ~(1 << (row & 7));
      this.present--;
    }
    if (rows < this.length) this.length = rows;
  }

  /** Validity for makeData: no bitmap when every row is present. */
  protected nulls(): { nullCount: number; nullBitmap: Uint8Array | undefined } {
    const nullCount = this.length - this.present;
    return { nullCount, nullBitmap: nullCount === 0 ? undefined : firstElements(this.validity, (this.length + 7) >> 3) };
  }

  abstract finish(): Data;
}

/** Numbers in a typed array, one element per row. */
abstract class NumberBuilder<T extends Float64Array | Int32Array> extends ColumnBuilder {
  protected abstract values: T;

  append(value: number): void {
    if (this.length >= this.values.length) this.values = grown(this.values, this.length + 1);
    this.values[this.length] = value;
    this.markPresent();
  }

  valueAt(row: number): number {
    return this.values[row]!;
  }
}

export class Float64Builder extends NumberBuilder<Float64Array> {
  protected values = new Float64Array(initialRows);

  finish(): Data<Float64> {
    return makeData({ type: new Float64(), length: this.length, ...this.nulls(), data: firstElements(this.values, this.length) });
  }
}

/** Dense integer ids (person indexes). */
export class Int32Builder extends NumberBuilder<Int32Array> {
  protected values = new Int32Array(initialRows);

  finish(): Data<Int32> {
    return makeData({ type: new Int32(), length: this.length, ...this.nulls(), data: firstElements(this.values, this.length) });
  }
}

/** UTC instants in epoch milliseconds, written as Arrow's 64-bit timestamps without a BigInt per value. */
export class TimestampBuilder extends ColumnBuilder {
  private words = new Int32Array(initialRows * 2);

  append(epochMs: number): void {
    if (2 * this.length >= this.words.length) this.words = grown(this.words, 2 * this.length + 2);
    const high = Math.floor(epochMs / twoTo32);
    this.words[2 * this.length] = epochMs - high * twoTo32;
    this.words[2 * this.length + 1] = high;
    this.markPresent();
  }

  finish(): Data<TimestampMillisecond> {
    const data = new BigInt64Array(firstElements(this.words, 2 * this.length).buffer);
    return makeData({ type: new TimestampMillisecond("UTC"), length: this.length, ...this.nulls(), data });
  }
}

export class BoolBuilder extends ColumnBuilder {
  private bits = new Uint8Array(initialRows >> 3);

  append(value: boolean): void {
    if (this.length >> 3 >= this.bits.length) this.bits = grown(this.bits, (this.length >> 3) + 1);
    if (value) this.bits[this.length >> 3]! |= 1 << (this.length & 7);
    this.markPresent();
  }

  valueAt(row: number): boolean {
    return (this.bits[row >> 3]! & (1 << (row & 7))) !== 0;
  }

  /** Also clears the dropped rows' value bits: append only ever sets bits. */
  override truncate(rows: number): void {
    for (let row = rows; row < this.length && row >> 3 < this.bits.length; row++) this.bits[row >> 3]! &= ~(1 << (row & 7));
    super.truncate(rows);
  }

  finish(): Data<Bool> {
    return makeData({ type: new Bool(), length: this.length, ...this.nulls(), data: firstElements(this.bits, (this.length + 7) >> 3) });
  }
}

/** Up to this many UTF-16 units, ASCII text is copied in a loop (uuids, ids): cheaper than a native Buffer.write call. */
const shortTextLength = 64;

/** Writes `text` as UTF-8 at `at` (room for 3 bytes per unit is reserved) and returns the bytes written. */
function writeShortText(bytes: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return bytes.write(text, at, "utf8");
    bytes[at + i] = code;
  }
  return text.length;
}

/** Strings as offsets into one UTF-8 buffer: for values that rarely repeat (uuids, JSON). */
export class Utf8Builder extends ColumnBuilder {
  private bytes: Buffer;
  private offsets: Int32Array;
  private used = 0;

  constructor(initialBytes = initialTextBytes, rows = initialRows) {
    super();
    this.bytes = Buffer.alloc(initialBytes);
    this.offsets = new Int32Array(rows + 1);
  }

  private reserve(extraBytes: number): void {
    if (this.used + extraBytes <= this.bytes.length) return;
    const bigger = Buffer.alloc(Math.max(2 * this.bytes.length, this.used + extraBytes));
    this.bytes.copy(bigger, 0, 0, this.used);
    this.bytes = bigger;
  }

  /** Ends row `length` at the bytes used so far. */
  private endRow(): void {
    if (this.length + 1 >= this.offsets.length) this.offsets = grown(this.offsets, this.length + 2);
    this.offsets[this.length + 1] = this.used;
  }

  append(value: string): void {
    // Up to 3 bytes per UTF-16 unit: Buffer.write truncates rather than overflows.
    this.reserve(3 * value.length);
    this.used += value.length <= shortTextLength ? writeShortText(this.bytes, this.used, value) : this.bytes.write(value, this.used, "utf8");
    this.endRow();
    this.markPresent();
  }

  /** Appends the UTF-8 bytes [start, end) of `source` as one value, without decoding them. */
  appendBytes(source: Uint8Array, start: number, end: number): void {
    const size = end - start;
    this.reserve(size);
    // Short values (uuids, ids) copy faster in a loop than through a subarray view.
    if (size <= 64) for (let i = 0; i < size; i++) this.bytes[this.used + i] = source[start + i]!;
    else this.bytes.set(source.subarray(start, end), this.used);
    this.used += size;
    this.endRow();
    this.markPresent();
  }

  override appendNull(): void {
    this.endRow();
    super.appendNull();
  }

  valueAt(row: number): string {
    return this.bytes.toString("utf8", this.offsets[row]!, this.offsets[row + 1]!);
  }

  override truncate(rows: number): void {
    if (rows < this.length) this.used = this.offsets[rows]!;
    super.truncate(rows);
  }

  finish(): Data<Utf8> {
    return makeData({
      type: new Utf8(),
      length: this.length,
      ...this.nulls(),
      valueOffsets: this.offsets.subarray(0, this.length + 1),
      data: new Uint8Array(this.bytes.buffer, this.bytes.byteOffset, this.used),
    });
  }
}

/**
 * Repeated strings (event names, countries, URLs, property values): Int32 codes into a
 * dictionary, whose words' UTF-8 is written once, when each is first met.
 */
export class DictionaryBuilder extends ColumnBuilder {
  private codes = new Int32Array(initialRows);
  private readonly dictionary = new WordIds();
  private readonly wordBytes = new Utf8Builder(initialWordBytes, 16);

  get words(): readonly string[] {
    return this.dictionary.words;
  }

  append(value: string): void {
    this.appendCode(this.codeOf(value));
  }

  /** Appends a value already in this builder's dictionary by its code. */
  appendCode(code: number): void {
    if (this.length >= this.codes.length) this.codes = grown(this.codes, this.length + 1);
    this.codes[this.length] = code;
    this.markPresent();
  }

  /**
   * The code of `word`, added to the dictionary when new: with its bytes, or not at all (a
   * value that cannot be written, which only a bug lets through, must not leave a code without
   * bytes behind, or the next new word would take its code and lose its own bytes).
   */
  codeOf(word: string): number {
    const code = this.dictionary.id(word);
    if (code === this.wordBytes.length) {
      try {
        this.wordBytes.append(word);
      } catch (error) {
        this.dictionary.truncate(code);
        throw error;
      }
    }
    return code;
  }

  valueAt(row: number): string {
    return this.words[this.codes[row]!]!;
  }

  /**
   * Also forgets the words only the dropped rows used. Words get their codes in the order
   * append first meets them, so those of the kept rows are the codes up to the highest they use.
   */
  override truncate(rows: number): void {
    if (rows >= this.length) return;
    let words = 0;
    for (let row = 0; row < rows; row++) if (this.isPresent(row) && this.codes[row]! >= words) words = this.codes[row]! + 1;
    this.dictionary.truncate(words);
    this.wordBytes.truncate(words);
    super.truncate(rows);
  }

  finish(): Data<Dictionary<Utf8, Int32>> {
    return this.finishWithCodes(firstElements(this.codes, this.length), this.length, this.nulls());
  }

  /** Arrow data of codes kept by the caller (compaction's gather) into this builder's words. */
  finishWithCodes(codes: Int32Array, length: number, nulls: { nullCount: number; nullBitmap: Uint8Array | undefined }): Data<Dictionary<Utf8, Int32>> {
    const type = new Dictionary(new Utf8(), new Int32());
    return makeData({ type, length, ...nulls, data: codes, dictionary: makeVector(this.wordBytes.finish()) });
  }
}
