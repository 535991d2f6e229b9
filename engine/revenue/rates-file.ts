// Writing the bundled rate table from the ECB's download (scripts/refresh-rates.ts): the
// eurofxref-hist.zip holds one CSV, newest day first, a column per currency the ECB has ever
// quoted (`N/A` where it did not that day) and a trailing comma. The bundled copy keeps the
// days from `since` on, oldest first, only currencies quoted in that period, empty cells for
// no rate: the same layout rates.ts reads, a third of the size.
import { unzipSync } from "fflate";
import { ReferenceRates, RatesFileError } from "./rates.ts";

export const ecbHistoryUrl = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip";
/** The first day the bundled table keeps (about 2,700 days, 600 KB). */
export const bundledSinceDefault = "2015-01-01";

/** The CSV inside the ECB's zip (its only .csv file). */
export function csvOfZip(zip: Uint8Array, source: string): string {
  const files = unzipSync(zip);
  const names = Object.keys(files).filter((name) => name.toLowerCase().endsWith(".csv"));
  if (names.length !== 1) throw new RatesFileError(`${source}: expected one CSV file in the zip, found ${names.length} (${Object.keys(files).join(", ")})`);
  return new TextDecoder().decode(files[names[0]!]!);
}

/** The ECB's CSV as the bundled table: days on or after `since` (YYYY-MM-DD), oldest first, quoted currencies only. */
export function compactRates(csv: string, since: string, source: string): string {
  const lines = csv.split(/\r?\n/).filter((line) => line.trim() !== "");
  const header = (lines[0] ?? "").split(",").map((cell) => cell.trim());
  const rows = lines.slice(1).map((line) => line.split(",").map((cell) => cell.trim())).filter((cells) => cells[0]! >= since).sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
  const blank = (cell: string | undefined) => cell === undefined || cell === "" || cell === "N/A";
  const kept = header.map((name, index) => index).filter((index) => index === 0 || (/^[A-Z]{3}$/.test(header[index]!) && rows.some((cells) => !blank(cells[index]))));
  const text = [kept.map((index) => header[index]).join(","), ...rows.map((cells) => kept.map((index) => (blank(cells[index]) ? "" : cells[index])).join(","))].join("\n") + "\n";
  // The table must read back as rates.ts reads it (dates, positive numbers, no day twice).
  ReferenceRates.parse(text, source);
  return text;
}
