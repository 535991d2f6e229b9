// Parquet's enum values as the footer and page headers carry them
// (apache/parquet-format, parquet.thrift), for the parts of the format this writer uses.

export const PhysicalType = { boolean: 0, int32: 1, int64: 2, double: 5, byteArray: 6 } as const;
export const ConvertedType = { utf8: 0, timestampMillis: 9 } as const;
export const Repetition = { optional: 1 } as const;
export const Encoding = { plain: 0, rle: 3, deltaBinaryPacked: 5, rleDictionary: 8 } as const;
export const CompressionCodec = { zstd: 6 } as const;
export const PageType = { dataPage: 0, dictionaryPage: 2 } as const;

/** LogicalType union members (field ids). */
export const LogicalTypeField = { string: 1, timestamp: 8 } as const;
/** TimeUnit union members (field ids). */
export const TimeUnitField = { millis: 1 } as const;

export const parquetMagic = new TextEncoder().encode("PAR1");
