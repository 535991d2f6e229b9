// A static cohort's members from a CSV file of distinct ids, read in the browser: RFC 4180
// fields (quotes, doubled quotes inside them, commas and line breaks in quoted fields), the
// first column, or the column headed distinct_id (or id) when the first row is a header.
// A file that is not UTF-8 text, or a row that cannot be read, is refused naming the line.

/** Distinct ids are 1 to 200 characters (spec 2, Limits). */
export const distinctIdLengthMax = 200;
/** Ids one file may hold (ten calls of the region's 1,000 persons each). */
export const csvIdsMax = 10_000;
/** Larger files are refused before they are read. */
export const csvBytesMax = 2 * 1024 * 1024;

export type CsvIds =
  | { ok: true; ids: string[]; duplicates: number; header: string | null }
  | { ok: false; error: string };

const headerNames = new Set(["distinct_id", "distinct id", "distinctid", "id"]);

interface Row {
  line: number;
  cells: { text: string; quoted: boolean }[];
}

class CsvProblem extends Error {}

/** The rows of a CSV text, each with the line it starts on; blank lines are skipped. */
function rowsOf(text: string): Row[] {
  const rows: Row[] = [];
  let cells: Row["cells"] = [];
  let cell = "";
  let quoted = false;
  let inQuotes = false;
  let line = 1;
  let rowLine = 1;
  let quoteLine = 1;
  const endCell = () => {
    cells.push({ text: cell, quoted });
    cell = "";
    quoted = false;
  };
  const endRow = () => {
    endCell();
    if (!(cells.length === 1 && cells[0]!.text === "" && !cells[0]!.quoted)) rows.push({ line: rowLine, cells });
    cells = [];
  };
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (inQuotes) {
      if (char === '"') {
        if (text[index + 1] === '"') {
          cell += '"';
          index++;
        } else {
          inQuotes = false;
        }
      } else {
        if (char === "\n") line++;
        cell += char;
      }
      continue;
    }
    if (char === '"') {
      if (cell.trim() !== "") throw new CsvProblem(`Line ${line}: a quote inside an unquoted field; quote the whole field and double the quotes inside it.`);
      cell = "";
      quoted = true;
      inQuotes = true;
      quoteLine = line;
    } else if (char === ",") {
      endCell();
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[index + 1] === "\n") index++;
      endRow();
      line++;
      rowLine = line;
    } else if (quoted) {
      if (char.trim() !== "") throw new CsvProblem(`Line ${line}: text after a quoted field's closing quote.`);
    } else {
      cell += char;
    }
  }
  if (inQuotes) throw new CsvProblem(`Line ${quoteLine}: a quoted field is never closed.`);
  endRow();
  return rows;
}

/** The distinct ids of a CSV text (see the top of this file), without duplicates, in file order. */
export function parseDistinctIdCsv(text: string): CsvIds {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  // Controls other than tab and line breaks do not occur in text files: this is another kind of file.
  if (/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/.test(body)) return { ok: false, error: "This is not a CSV text file: it holds binary data. Choose a .csv file with one distinct id per line." };
  let rows: Row[];
  try {
    rows = rowsOf(body);
  } catch (error) {
    if (error instanceof CsvProblem) return { ok: false, error: error.message };
    throw error;
  }
  if (rows.length === 0) return { ok: false, error: "The file is empty: it has no distinct ids." };
  let column = 0;
  let header: string | null = null;
  const headed = rows[0]!.cells.findIndex((cell) => headerNames.has(cell.text.trim().toLowerCase()));
  if (headed >= 0) {
    column = headed;
    header = rows[0]!.cells[headed]!.text.trim();
    rows = rows.slice(1);
  }
  const seen = new Set<string>();
  const ids: string[] = [];
  let duplicates = 0;
  for (const row of rows) {
    const cell = row.cells[column];
    const id = cell === undefined ? "" : cell.quoted ? cell.text : cell.text.trim();
    if (id === "") return { ok: false, error: `Line ${row.line}: the distinct id is empty.` };
    if (id.length > distinctIdLengthMax) return { ok: false, error: `Line ${row.line}: a distinct id has at most ${distinctIdLengthMax} characters; this one has ${id.length}.` };
    if (seen.has(id)) {
      duplicates++;
      continue;
    }
    seen.add(id);
    ids.push(id);
    if (ids.length > csvIdsMax) return { ok: false, error: `The file holds more than ${csvIdsMax.toLocaleString("en")} distinct ids; split it into smaller files.` };
  }
  if (ids.length === 0) return { ok: false, error: "The file has a header but no distinct ids." };
  return { ok: true, ids, duplicates, header };
}

/** A chosen file's distinct ids: its size and encoding checked, then parsed. */
export async function readDistinctIdFile(file: File): Promise<CsvIds> {
  if (file.size > csvBytesMax) return { ok: false, error: `The file is ${(file.size / 1024 / 1024).toFixed(1)} MB; at most ${csvBytesMax / 1024 / 1024} MB can be uploaded.` };
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    return { ok: false, error: "The file is not UTF-8 text. Save it as CSV (UTF-8) and choose it again." };
  }
  return parseDistinctIdCsv(text);
}
