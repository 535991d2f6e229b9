// DuckDB values as JSON for /sql answers (docs/sql.md, "Values"). Integers of any width are
// numbers while they are exact in JSON (|n| <= 2^53 - 1) and decimal strings past that;
// DECIMAL is a number (a double); TIMESTAMP WITH TIME ZONE is an ISO 8601 instant in UTC to
// the millisecond (...Z), a TIMESTAMP without one the same wall-clock time without the Z (what
// timezone('Europe/Paris', timestamp) gives is a local time, not an instant); DATE is
// YYYY-MM-DD; NaN and infinities of DOUBLE are the strings "NaN", "Infinity", "-Infinity";
// lists, arrays, structs and maps nest as JSON; every other type (TIME, INTERVAL, UUID, BLOB,
// BIT, ENUM, ...) is DuckDB's own text.
import {
  DuckDBTypeId, JsonDuckDBValueConverter, dateFromTimestampMillisecondsValue,
  dateFromTimestampNanosecondsValue, dateFromTimestampSecondsValue, dateFromTimestampTZValue, dateFromTimestampValue,
  doubleFromDecimalValue, stringFromValue, type DuckDBValue, type DuckDBValueConverter,
} from "@duckdb/node-api";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const safeMin = BigInt(Number.MIN_SAFE_INTEGER);
const safeMax = BigInt(Number.MAX_SAFE_INTEGER);

const integer = (value: bigint): number | string => (value >= safeMin && value <= safeMax ? Number(value) : String(value));

/** ISO 8601 (without the Z for a time without zone); infinities and times a JS Date cannot hold stay DuckDB's text. */
const isoTime = (toDate: (value: DuckDBValue) => Date, zoned = false) => (value: DuckDBValue): string => {
  try {
    const text = toDate(value).toISOString();
    return zoned ? text : text.slice(0, -1);
  } catch {
    // The converters throw past the JS Date range (about ±275,000 years, and ±infinity).
    return String(value);
  }
};

const overrides: Partial<Record<DuckDBTypeId, (value: DuckDBValue) => JsonValue>> = {
  [DuckDBTypeId.BIGINT]: (value) => integer(value as bigint),
  [DuckDBTypeId.UBIGINT]: (value) => integer(value as bigint),
  [DuckDBTypeId.HUGEINT]: (value) => integer(value as bigint),
  [DuckDBTypeId.UHUGEINT]: (value) => integer(value as bigint),
  [DuckDBTypeId.BIGNUM]: (value) => integer(value as bigint),
  [DuckDBTypeId.DECIMAL]: doubleFromDecimalValue,
  [DuckDBTypeId.TIMESTAMP]: isoTime(dateFromTimestampValue),
  [DuckDBTypeId.TIMESTAMP_TZ]: isoTime(dateFromTimestampTZValue, true),
  [DuckDBTypeId.TIMESTAMP_S]: isoTime(dateFromTimestampSecondsValue),
  [DuckDBTypeId.TIMESTAMP_MS]: isoTime(dateFromTimestampMillisecondsValue),
  [DuckDBTypeId.TIMESTAMP_NS]: isoTime(dateFromTimestampNanosecondsValue),
  [DuckDBTypeId.INTERVAL]: stringFromValue,
};

/** The converter reader.convertRows takes; nested values come back through it. */
export const jsonValue: DuckDBValueConverter<JsonValue> = (value, type, converter) => {
  if (value === null || value === undefined) return null;
  const override = overrides[type.typeId];
  return override ? override(value) : (JsonDuckDBValueConverter(value, type, converter) as JsonValue);
};
