// Parquet's RLE/bit-packed hybrid encoding (Encodings.md): runs of at least eight equal values
// become RLE runs (count and value), everything else bit-packed runs of groups of eight.
// Definition levels of an optional column are one bit per row, which is exactly an Arrow
// validity bitmap: they are written as one bit-packed run of the bitmap's bytes.
import { BitPacker } from "./bit-packing.ts";
import type { ByteWriter } from "./byte-writer.ts";

const groupValues = 8;

/** Bit-packed run of the groups [start, end) of `values` (end - start a multiple of 8, or up to the padded end). */
function bitPackedRun(values: ArrayLike<number>, start: number, end: number, count: number, width: number, out: ByteWriter): void {
  const groups = Math.ceil((end - start) / groupValues);
  out.varint(groups * 2 + 1);
  const packer = new BitPacker(out);
  for (let i = start; i < start + groups * groupValues; i++) packer.write(i < count ? values[i]! : 0, width);
  packer.flush();
}

function rleRun(value: number, length: number, width: number, out: ByteWriter): void {
  out.varint(length * 2);
  for (let byte = 0; byte < Math.ceil(width / 8); byte++) out.byte(Math.floor(value / 2 ** (8 * byte)) & 0xff);
}

/** The first `count` values (each below 2^width) in the hybrid encoding, without a length prefix. */
export function encodeHybrid(values: ArrayLike<number>, count: number, width: number, out: ByteWriter): void {
  let packedStart = -1;
  let i = 0;
  while (i < count) {
    const value = values[i]!;
    let sameUntil = i + 1;
    while (sameUntil < count && sameUntil < i + groupValues && values[sameUntil] === value) sameUntil++;
    if (sameUntil - i === groupValues) {
      while (sameUntil < count && values[sameUntil] === value) sameUntil++;
      if (packedStart >= 0) bitPackedRun(values, packedStart, i, count, width, out);
      packedStart = -1;
      rleRun(value, sameUntil - i, width, out);
      i = sameUntil;
      continue;
    }
    // A bit-packed run only ever ends on a group boundary (or the end), so it holds whole groups.
    if (packedStart < 0) packedStart = i;
    i = Math.min(count, i + groupValues);
  }
  if (packedStart >= 0) bitPackedRun(values, packedStart, count, count, width, out);
}

/**
 * Definition levels (1 = value present) of `rows` rows for a data page v1: the 4-byte length,
 * then one RLE run when every row is present, else the validity bitmap (starting at a
 * byte boundary) as one bit-packed run.
 */
export function encodeDefinitionLevels(validity: Uint8Array | null, firstRow: number, rows: number, out: ByteWriter): void {
  const lengthAt = out.length;
  out.uint32(0);
  if (validity === null) rleRun(1, rows, 1, out);
  else {
    if (firstRow % groupValues !== 0) throw new Error("definition levels must start at a byte boundary of the validity bitmap");
    const groups = Math.ceil(rows / groupValues);
    out.varint(groups * 2 + 1);
    const bytes = validity.subarray(firstRow / groupValues, firstRow / groupValues + groups);
    out.append(bytes);
    // Bits past the last row (bitmap padding) are not levels of any row: clear them.
    const tail = rows % groupValues;
    if (tail !== 0) out.raw[out.length - 1]! &= (1 << tail) - 1;
  }
  out.patchUint32(lengthAt, out.length - lengthAt - 4);
}
