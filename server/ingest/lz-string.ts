// lz-string's base64 form (`compressToBase64`), which old posthog-js sent as
// `compression=lz64`, decoded with a bound on its output. The format is LZW-like: each code
// names a dictionary entry one character longer than the one before, so a payload of a few
// hundred KB can stand for gigabytes of text. The library's own decoder builds all of it
// before a caller can measure it (measured: 122 KB of input took 9 s and 4 GB); this one stops
// as soon as the output passes the bound.

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
const sixBitValues = new Int8Array(128).fill(-1);
for (let index = 0; index < alphabet.length; index++) sixBitValues[alphabet.charCodeAt(index)] = index;

/** Code values with a meaning of their own; dictionary entries start after them. */
const nextIsByte = 0;
const nextIsUnit = 1;
const endOfStream = 2;
const firstEntry = 3;

export type LzDecoded = { ok: true; text: string } | { ok: false; reason: "invalid" | "too_long" };

/**
 * Reads the payload's bits, six per base64 character (highest first), assembled lowest first
 * into each value. Past the end it reads zeros and marks itself exhausted, as the format's own
 * decoder does: a stream must end with its end code before that.
 */
class BitReader {
  exhausted = false;
  private next = 0;
  private value = 0;
  private mask = 0;

  constructor(private readonly text: string) {}

  /** The next `count` bits as a number; -1 at a character outside the alphabet. */
  read(count: number): number {
    let bits = 0;
    for (let power = 1, read = 0; read < count; read++, power *= 2) {
      if (this.mask === 0) {
        this.mask = 32;
        if (this.next >= this.text.length) {
          this.exhausted = true;
          this.value = 0;
        } else {
          const code = this.text.charCodeAt(this.next++);
          this.value = code < 128 ? sixBitValues[code]! : -1;
          if (this.value < 0) return -1;
        }
      }
      if ((this.value & this.mask) !== 0) bits += power;
      this.mask >>= 1;
    }
    return bits;
  }
}

/** The text of an lz-string base64 payload, unless it is not one or is longer than `unitsMax` UTF-16 units. */
export function decodeLzBase64(payload: string, unitsMax: number): LzDecoded {
  const invalid: LzDecoded = { ok: false, reason: "invalid" };
  const bits = new BitReader(payload);
  /** The dictionary: entries from index firstEntry on (the codes below it are not entries). */
  const entries: string[] = ["", "", ""];
  /** A literal read from the stream, or null at the end code (or a bad read). */
  const literal = (kind: number): string | null => {
    const unit = kind === nextIsByte ? bits.read(8) : kind === nextIsUnit ? bits.read(16) : -1;
    return unit < 0 ? null : String.fromCharCode(unit);
  };
  let previous = literal(bits.read(2));
  if (previous === null || bits.exhausted) return invalid;
  entries.push(previous);
  const parts = [previous];
  let units = previous.length;
  let width = 3;
  /** Entries left to add before codes grow one bit wider. */
  let untilWider = 4;
  const added = () => {
    if (--untilWider === 0) untilWider = 2 ** width++;
  };
  for (;;) {
    if (bits.exhausted) return invalid;
    let code = bits.read(width);
    if (code < 0) return invalid;
    if (code === endOfStream) return { ok: true, text: parts.join("") };
    if (code === nextIsByte || code === nextIsUnit) {
      const text = literal(code);
      if (text === null) return invalid;
      entries.push(text);
      code = entries.length - 1;
      added();
    }
    let entry: string;
    if (code >= firstEntry && code < entries.length) entry = entries[code]!;
    else if (code === entries.length) entry = previous + previous[0];
    else return invalid;
    units += entry.length;
    if (units > unitsMax) return { ok: false, reason: "too_long" };
    parts.push(entry);
    entries.push(previous + entry[0]);
    added();
    previous = entry;
  }
}
