// A property's numeric reading per row: numbers as stored, text that is a plain decimal number
// parsed, anything else absent (NaN here).
import { textNumber, type Column } from "./columns.ts";

export function numericValues(column: Column): Float64Array {
  if (column.kind === "number") {
    if (!column.present) return column.values;
    return column.values.map((value, row) => (column.present![row] === 1 ? value : NaN));
  }
  const parsed = Float64Array.from(column.words, (word) => textNumber(word) ?? NaN);
  return Float64Array.from(column.codes, (code) => (code < 0 ? NaN : parsed[code]!));
}
