// zstd frames that store their content as it is (RFC 8878: a frame header, then one block of
// type Raw, the last): zstd writes incompressible data this way, such as delta-packed
// timestamps and dictionary indices of many values (about 60% of those pages of a part). Their
// content is a view of the page's bytes, where Bun's decompressor would copy it into fresh
// memory; any other frame is left to the decompressor. (A frame's checksum, if it has one, is
// not checked on this path, as pages' CRCs are not.)

const magic = 0xfd2fb528;
const blockHeaderBytes = 3;
const blockRaw = 0;
const checksumBytes = 4;
/** Bytes of the dictionary id and frame content size fields by their flags. */
const dictionaryIdBytes = [0, 1, 2, 4];
const contentSizeBytes = [0, 2, 4, 8];

/** The content of a zstd frame of one raw block taking all of `frame` (an optional checksum aside), or null. */
export function rawFrameContent(frame: Uint8Array): Uint8Array | null {
  if (frame.byteLength < 6 || new DataView(frame.buffer, frame.byteOffset, 4).getUint32(0, true) !== magic) return null;
  const descriptor = frame[4]!;
  const singleSegment = (descriptor >> 5) & 1;
  const checksum = (descriptor >> 2) & 1;
  // Reserved bit set: not a frame this reader understands.
  if ((descriptor >> 3) & 1) return null;
  const contentSizeFlag = descriptor >> 6;
  const headerEnd = 5 + (singleSegment ? 0 : 1) + dictionaryIdBytes[descriptor & 3]! + (contentSizeFlag === 0 ? singleSegment : contentSizeBytes[contentSizeFlag]!);
  if (headerEnd + blockHeaderBytes > frame.byteLength) return null;
  const block = frame[headerEnd]! | (frame[headerEnd + 1]! << 8) | (frame[headerEnd + 2]! << 16);
  const last = block & 1;
  const type = (block >> 1) & 3;
  const size = block >>> 3;
  const start = headerEnd + blockHeaderBytes;
  if (!last || type !== blockRaw || start + size + (checksum ? checksumBytes : 0) !== frame.byteLength) return null;
  return frame.subarray(start, start + size);
}
