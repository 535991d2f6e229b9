// Which values each row group holds, for the columns queries select rows by: written in the
// footer's key-value metadata so a reader that has parsed the footer (as it must to read
// anything) knows, with no further read, which row groups may hold a query's events.
// Under key `listedValuesKey(column)`: a JSON array with one entry per row group, the
// distinct present values in unsigned bytewise order, or null where the writer did not list
// them (too many bytes of them, or the chunk was written without a dictionary).
//
// Chosen over reading the event chunk's dictionary page per row group: that costs a read and
// a zstd frame per part before the query knows whether it needs the part, where the footer is
// read anyway; and a dictionary page may hold words of other row groups (Arrow dictionaries
// are per table). Measured at 1M bench events: see engine/README.md.

/** Columns whose values each row group lists. */
export const listedValueColumns: readonly string[] = ["event"];

export const listedValuesKey = (column: string) => `svc:row_group_values:${column}`;
