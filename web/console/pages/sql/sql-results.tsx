// A statement's answer: its rows in a table (NULL marked, lists and structs as JSON), the row
// count, a notice when the answer holds only the first rows, and the rows as a CSV file built
// here in the browser.
import type { SqlResult, SqlValue } from "../../api/sql.ts";
import { formatNumber } from "../../format/numbers.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { DataTable, type Column } from "../../ui/data-table.tsx";
import { DownloadIcon } from "../../ui/icons.tsx";
import { saveFile } from "../../ui/save-file.ts";
import { toCsv } from "./csv.ts";

/** The answer's row bound (docs/sql.md, Limits: sqlRowsMax). */
export const sqlAnswerRowsMax = 10_000;

interface NumberedRow {
  index: number;
  values: SqlValue[];
}

function Cell({ value }: { value: SqlValue }) {
  if (value === null) return <span class="cell-null">NULL</span>;
  return <span class="cell-value">{typeof value === "object" ? JSON.stringify(value) : String(value)}</span>;
}

/** Headers are keys of the table: a name the answer repeats is told apart by its position. */
function columnsOf(result: SqlResult): Column<NumberedRow>[] {
  const seen = new Map<string, number>();
  return result.columns.map((name, position) => {
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    const numeric = /INT|DOUBLE|FLOAT|DECIMAL|REAL|NUMERIC/.test(result.types[position] ?? "") && !result.types[position]!.endsWith("]");
    return { label: count === 1 ? name : `${name} (${count})`, numeric, cell: (row) => <Cell value={row.values[position]!} /> };
  });
}

/** Saves the rows as `sql-result-<time>.csv`. */
const downloadCsv = (result: SqlResult) =>
  saveFile(new Blob([toCsv(result.columns, result.rows)], { type: "text/csv;charset=utf-8" }), `sql-result-${new Date().toISOString().slice(0, 19).replaceAll(":", "-")}.csv`);

export function SqlResults({ result, elapsedMs }: { result: SqlResult; elapsedMs: number }) {
  const rows = result.rows.map((values, index) => ({ index, values }));
  return (
    <section class="card table-card sql-results" aria-label="Results">
      <div class="results-head">
        <p class="results-count" role="status">
          {formatNumber(result.rows.length)} {result.rows.length === 1 ? "row" : "rows"}
          <span class="results-time"> in {formatNumber(elapsedMs)} ms</span>
        </p>
        <Button small onClick={() => downloadCsv(result)} disabled={result.columns.length === 0}><DownloadIcon /> Download CSV</Button>
      </div>
      {result.truncated && (
        <div class="results-notice">
          <Alert tone="info">The result has more rows than an answer holds: these are the first {formatNumber(result.rows.length)} (at most {formatNumber(sqlAnswerRowsMax)}). Aggregate, filter or add a LIMIT to see the rest.</Alert>
        </div>
      )}
      <DataTable<NumberedRow>
        caption="Rows of the result"
        columns={columnsOf(result)}
        rows={rows}
        rowKey={(row) => String(row.index)}
        empty={<p class="muted-note">The statement returned no rows.</p>}
      />
    </section>
  );
}
