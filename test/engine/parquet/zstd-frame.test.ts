// zstd frames of one raw block are read in place, with the bytes zstd itself gives back;
// compressed frames and anything else are left to the decompressor.
import { expect, test } from "bun:test";
import { rawFrameContent } from "../../../engine/parquet/zstd-frame.ts";
import { seededRandom } from "../dataset.ts";

const random = seededRandom(7);
const noise = Uint8Array.from({ length: 5_000 }, () => Math.floor(random() * 256));

test("incompressible bytes come back as the frame's raw block, the same bytes zstd decompresses", () => {
  const frame = Bun.zstdCompressSync(noise);
  const content = rawFrameContent(frame);
  expect(content).toEqual(new Uint8Array(Bun.zstdDecompressSync(frame)));
  expect(content).toEqual(noise);
});

test("compressed frames, a frame followed by more bytes and other bytes are not read here", () => {
  expect(rawFrameContent(Bun.zstdCompressSync(new Uint8Array(5_000).fill(7)))).toBeNull();
  const frame = Bun.zstdCompressSync(noise);
  const longer = new Uint8Array(frame.byteLength + 1);
  longer.set(frame);
  expect(rawFrameContent(longer)).toBeNull();
  expect(rawFrameContent(noise)).toBeNull();
  expect(rawFrameContent(new Uint8Array(0))).toBeNull();
});
