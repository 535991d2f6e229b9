// Parquet's enum values as the footer and page headers carry them (apache/parquet-format,
// parquet.thrift), for the parts of the format storage writes and the engine reads
// (engine/parquet/).

export const PhysicalType = { boolean: 0, int32: 1, int64: 2, double: 5, byteArray: 6 } as const;
export const ConvertedType = { utf8: 0, timestampMillis: 9, int32: 17 } as const;
export const Repetition = { required: 0, optional: 1 } as const;
export const Encoding = {
  plain: 0, plainDictionary: 2, rle: 3, deltaBinaryPacked: 5, deltaLengthByteArray: 6, deltaByteArray: 7, rleDictionary: 8,
} as const;
export const CompressionCodec = { uncompressed: 0, zstd: 6 } as const;
export const PageType = { dataPage: 0, indexPage: 1, dictionaryPage: 2, dataPageV2: 3 } as const;

/** LogicalType union members (field ids). */
export const LogicalTypeField = { string: 1, timestamp: 8, integer: 10 } as const;
/** TimeUnit union members (field ids). */
export const TimeUnitField = { millis: 1 } as const;

export const parquetMagic = new TextEncoder().encode("PAR1");
