// Parquet's DELTA_BINARY_PACKED encoding (Encodings.md) for integer columns sorted or nearly
// sorted (timestamps and person indexes of parts sorted by person and time): a header (block
// size, miniblocks per block, value count, first value), then per block of 128 deltas the
// smallest delta and, per miniblock of 32, the deltas above it bit-packed at the miniblock's
// width. INT32 deltas wrap around in 32 bits as readers compute them, so widths stay <= 32.
import { BitPacker, bitWidthOf } from "./bit-packing.ts";
import type { ByteWriter } from "./byte-writer.ts";

const blockValues = 128;
const miniblocksPerBlock = 4;
const miniblockValues = blockValues / miniblocksPerBlock;

/**
 * Encodes `values` (safe integers; for `int32`, each within the int32 range). `values` may be
 * longer than `count`: only the first `count` are written.
 */
export function encodeDeltaBinaryPacked(values: ArrayLike<number>, count: number, physical: "int32" | "int64", out: ByteWriter): void {
  out.varint(blockValues);
  out.varint(miniblocksPerBlock);
  out.varint(count);
  out.zigzag(count > 0 ? values[0]! : 0);
  const deltas = new Float64Array(blockValues);
  const packer = new BitPacker(out);
  for (let start = 1; start < count; start += blockValues) {
    const inBlock = Math.min(blockValues, count - start);
    let minDelta = Infinity;
    for (let i = 0; i < inBlock; i++) {
      const delta = physical === "int32" ? (values[start + i]! - values[start + i - 1]!) | 0 : values[start + i]! - values[start + i - 1]!;
      deltas[i] = delta;
      if (delta < minDelta) minDelta = delta;
    }
    out.zigzag(minDelta);
    const widths = new Array<number>(miniblocksPerBlock).fill(0);
    for (let mini = 0; mini * miniblockValues < inBlock; mini++) {
      let max = 0;
      for (let i = mini * miniblockValues; i < Math.min(inBlock, (mini + 1) * miniblockValues); i++) {
        const above = physical === "int32" ? ((deltas[i]! - minDelta) >>> 0) : deltas[i]! - minDelta;
        deltas[i] = above;
        if (above > max) max = above;
      }
      widths[mini] = bitWidthOf(max);
    }
    for (const width of widths) out.byte(width);
    // Miniblocks the last block does not need have no body; a needed one is padded to 32 values.
    for (let mini = 0; mini * miniblockValues < inBlock; mini++) {
      for (let i = mini * miniblockValues; i < (mini + 1) * miniblockValues; i++) packer.write(i < inBlock ? deltas[i]! : 0, widths[mini]!);
      packer.flush();
    }
  }
}
