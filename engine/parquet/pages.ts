// The pages of one column chunk (parquet.thrift PageHeader): each header, then its body,
// decompressed (zstd through Bun's native zstd unless the frame stores it raw, zstd-frame.ts;
// or stored uncompressed). Data pages v1 hold their levels inside the compressed body, each
// level run prefixed by its byte length; v2 pages keep the levels uncompressed ahead of the
// (maybe compressed) values. Columns are flat and at most optional, so there are no repetition
// levels and definition levels are 0 or 1.
import { CompressionCodec, Encoding, PageType } from "../../storage/parquet/parquet-format.ts";
import { ThriftType } from "../../storage/parquet/thrift-compact.ts";
import { ThriftReader } from "./thrift.ts";
import { ParquetUnsupportedError } from "./unsupported.ts";
import { rawFrameContent } from "./zstd-frame.ts";

/** A data page: `values` slots (nulls included); `levels` its definition levels (RLE hybrid, 1 bit) or null when the column is required. */
export interface DataPage {
  kind: "data";
  values: number;
  encoding: number;
  levels: Uint8Array | null;
  data: Uint8Array;
}

export interface DictionaryPage {
  kind: "dictionary";
  values: number;
  data: Uint8Array;
}

interface Header {
  type: number;
  uncompressed: number;
  compressed: number;
  values: number;
  encoding: number;
  levelEncoding: number;
  levelBytes: number;
  repetitionBytes: number;
  compressedValues: boolean;
}

function pageHeader(reader: ThriftReader): Header {
  const header: Header = { type: -1, uncompressed: -1, compressed: -1, values: -1, encoding: -1, levelEncoding: Encoding.rle, levelBytes: 0, repetitionBytes: 0, compressedValues: true };
  for (let field = reader.field(0); field !== 0; field = reader.field(field)) {
    const id = field >> 4;
    const type = field & 0x0f;
    if (id === 1 && type === ThriftType.i32) header.type = reader.int();
    else if (id === 2 && type === ThriftType.i32) header.uncompressed = reader.int();
    else if (id === 3 && type === ThriftType.i32) header.compressed = reader.int();
    else if ((id === 5 || id === 7 || id === 8) && type === ThriftType.struct) pageTypeHeader(reader, id, header);
    else reader.skip(type);
  }
  if (header.compressed < 0 || header.uncompressed < 0) throw new ParquetUnsupportedError("a page header has no sizes");
  return header;
}

/** The fields of a data page (5), dictionary page (7) or data page v2 (8) header that are read. */
function pageTypeHeader(reader: ThriftReader, kind: number, header: Header): void {
  for (let field = reader.field(0); field !== 0; field = reader.field(field)) {
    const id = field >> 4;
    const type = field & 0x0f;
    if (id === 1 && type === ThriftType.i32) header.values = reader.int();
    else if (((kind !== 8 && id === 2) || (kind === 8 && id === 4)) && type === ThriftType.i32) header.encoding = reader.int();
    else if (kind === 5 && id === 3 && type === ThriftType.i32) header.levelEncoding = reader.int();
    else if (kind === 8 && id === 5 && type === ThriftType.i32) header.levelBytes = reader.int();
    else if (kind === 8 && id === 6 && type === ThriftType.i32) header.repetitionBytes = reader.int();
    else if (kind === 8 && id === 7) header.compressedValues = type === ThriftType.boolTrue;
    else reader.skip(type);
  }
}

function decompress(body: Uint8Array, codec: number, size: number): Uint8Array {
  if (codec === CompressionCodec.uncompressed) return body;
  const out = rawFrameContent(body) ?? Bun.zstdDecompressSync(body);
  if (out.byteLength !== size) throw new ParquetUnsupportedError(`a page decompressed to ${out.byteLength} bytes, not ${size}`);
  return out;
}

/** Every page of a column chunk (`bytes` from its first page to its end), in order. */
export function* chunkPages(bytes: Uint8Array, codec: number, optional: boolean): Generator<DataPage | DictionaryPage> {
  if (codec !== CompressionCodec.uncompressed && codec !== CompressionCodec.zstd) throw new ParquetUnsupportedError(`compression codec ${codec} is not read`);
  const reader = new ThriftReader(bytes);
  while (reader.pos < bytes.length) {
    const header = pageHeader(reader);
    const start = reader.pos;
    const end = start + header.compressed;
    if (end > bytes.length) throw new ParquetUnsupportedError("a page passes its column chunk");
    reader.pos = end;
    const body = bytes.subarray(start, end);
    if (header.type === PageType.indexPage) continue;
    if (header.type === PageType.dictionaryPage) {
      yield { kind: "dictionary", values: header.values, data: decompress(body, codec, header.uncompressed) };
    } else if (header.type === PageType.dataPage) {
      const page = decompress(body, codec, header.uncompressed);
      if (!optional) {
        yield { kind: "data", values: header.values, encoding: header.encoding, levels: null, data: page };
        continue;
      }
      if (header.levelEncoding !== Encoding.rle) throw new ParquetUnsupportedError(`definition levels in encoding ${header.levelEncoding} are not read`);
      if (page.byteLength < 4) throw new ParquetUnsupportedError("a data page is too short for its levels");
      const levelBytes = new DataView(page.buffer, page.byteOffset, 4).getUint32(0, true);
      if (4 + levelBytes > page.byteLength) throw new ParquetUnsupportedError("a data page's levels pass its end");
      yield { kind: "data", values: header.values, encoding: header.encoding, levels: page.subarray(4, 4 + levelBytes), data: page.subarray(4 + levelBytes) };
    } else if (header.type === PageType.dataPageV2) {
      if (header.repetitionBytes !== 0) throw new ParquetUnsupportedError("a flat column's page has repetition levels");
      const levels = body.subarray(0, header.levelBytes);
      const values = body.subarray(header.levelBytes);
      const data = header.compressedValues ? decompress(values, codec, header.uncompressed - header.levelBytes) : values;
      yield { kind: "data", values: header.values, encoding: header.encoding, levels: optional ? levels : null, data };
    } else throw new ParquetUnsupportedError(`page type ${header.type} is not read`);
  }
}
