// Little-endian bit packing (least significant bit first), as Parquet's RLE/bit-packed hybrid
// and DELTA_BINARY_PACKED encodings store values: each value takes `width` bits, values follow
// each other with no gaps, and the last byte is padded with zeros.
import type { ByteWriter } from "./byte-writer.ts";

/** Bits of `value` at most this many are pushed at once, so the accumulator stays within 32 bits. */
const pushBitsMax = 24;
const twoTo32 = 2 ** 32;

export class BitPacker {
  private accumulator = 0;
  private pending = 0;

  constructor(private readonly out: ByteWriter) {}

  /** The low `bits` (at most 24) bits of a non-negative integer below 2^32. */
  private push(value: number, bits: number): void {
    this.accumulator |= (value & ((1 << bits) - 1)) << this.pending;
    this.pending += bits;
    while (this.pending >= 8) {
      this.out.byte(this.accumulator & 0xff);
      this.accumulator >>>= 8;
      this.pending -= 8;
    }
  }

  /** A non-negative safe integer in `width` bits (0-64). */
  write(value: number, width: number): void {
    if (width <= pushBitsMax) {
      this.push(value, width);
      return;
    }
    const low = value % twoTo32;
    const high = (value - low) / twoTo32;
    const lowBits = Math.min(width, 32);
    this.push(low & 0xffff, 16);
    this.push(low >>> 16, lowBits - 16);
    for (let shift = 0; shift < width - 32; shift += pushBitsMax) this.push(high >>> shift, Math.min(pushBitsMax, width - 32 - shift));
  }

  /** Writes out a partly filled last byte. */
  flush(): void {
    if (this.pending > 0) this.out.byte(this.accumulator & 0xff);
    this.accumulator = 0;
    this.pending = 0;
  }
}

/** Bits needed for values up to `max` (0 for 0). */
export function bitWidthOf(max: number): number {
  let width = 0;
  while (max >= 1) {
    max = Math.floor(max / 2);
    width++;
  }
  return width;
}
