// A result as CSV (RFC 4180): fields separated by commas, records by CRLF, a field quoted when it
// holds a comma, a double quote, CR or LF, with its double quotes doubled. Text that a
// spreadsheet would take as a formula (starting with =, +, -, @, tab or CR) gets a leading
// apostrophe, so opening the file runs nothing an event's sender wrote (OWASP, "CSV
// Injection"). Numbers and booleans are written as they are: they cannot hold a formula. A
// UTF-8 byte order mark leads, so spreadsheets read non-ASCII text as UTF-8.
import type { SqlValue } from "../../api/sql.ts";

const formulaStart = /^[=+\-@\t\r]/;
const needsQuotes = /[",\r\n]/;

/** Text a spreadsheet cannot run: a formula-like start gets a leading apostrophe. */
export const neutraliseFormula = (text: string) => (formulaStart.test(text) ? `'${text}` : text);

export function csvField(value: SqlValue): string {
  if (value === null) return "";
  // Lists, structs and maps as their JSON, which starts with [ or {.
  const text = typeof value === "string" ? neutraliseFormula(value) : typeof value === "object" ? JSON.stringify(value) : String(value);
  return needsQuotes.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const record = (values: readonly SqlValue[]) => values.map(csvField).join(",");

export const csvByteOrderMark = "\uFEFF";

/** The header (the column names, which can come from the data too) and every row. */
export function toCsv(columns: readonly string[], rows: readonly (readonly SqlValue[])[]): string {
  return csvByteOrderMark + [record(columns), ...rows.map(record)].map((line) => `${line}\r\n`).join("");
}
