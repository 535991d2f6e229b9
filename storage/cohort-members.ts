// A cohort's members as stored: the sorted person indexes, each written as its distance from
// the previous one (dense cohorts make runs of small numbers), then zstd. A million members
// of a dense project take a few hundred KB, and reading them back is one decompression and a
// running sum, so a query builds its bitset over the person index without parsing rows.

/** zstd level: the blobs are written once per calculation and read by every query naming the cohort. */
const membersZstdLevel = 9;

/** Sorted, distinct, non-negative person indexes as a blob. */
export function encodeMembers(members: Int32Array): Uint8Array {
  const gaps = new Uint32Array(members.length);
  let previous = 0;
  for (let at = 0; at < members.length; at++) {
    const member = members[at]!;
    if (member < previous || (at > 0 && member === previous)) throw new Error("cohort members must be sorted and distinct");
    gaps[at] = member - previous;
    previous = member;
  }
  return Bun.zstdCompressSync(new Uint8Array(gaps.buffer), { level: membersZstdLevel });
}

export function decodeMembers(blob: Uint8Array): Int32Array {
  const decompressed = Bun.zstdDecompressSync(blob);
  // A view of 32-bit words needs a 4-byte aligned start.
  const bytes = decompressed.byteOffset % 4 === 0 ? decompressed : new Uint8Array(decompressed);
  const gaps = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const members = new Int32Array(gaps.length);
  let running = 0;
  for (let at = 0; at < gaps.length; at++) members[at] = running += gaps[at]!;
  return members;
}
