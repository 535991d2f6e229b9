// A table of rows with named columns. Cells render text (JSX), never markup, so values from
// the data show literally. A column can be right-aligned for numbers; the caption names the
// table for screen readers.
import type { ComponentChildren } from "preact";

export interface Column<Row> {
  /** The header's text. */
  label: string;
  cell(row: Row): ComponentChildren;
  numeric?: boolean;
  /** A column that only says what can be done with the row, with no header text shown. */
  actions?: boolean;
}

interface DataTableProps<Row> {
  caption: string;
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey(row: Row): string;
  /** Shown in place of the table when there are no rows. */
  empty?: ComponentChildren;
  /** Called when a row is chosen (click or Enter): the row becomes a link-like target. */
  onRowClick?(row: Row): void;
}

const cellClass = (column: { numeric?: boolean; actions?: boolean }) =>
  [column.numeric ? "cell-numeric" : "", column.actions ? "cell-actions" : ""].filter(Boolean).join(" ") || undefined;

export function DataTable<Row>({ caption, columns, rows, rowKey, empty, onRowClick }: DataTableProps<Row>) {
  if (rows.length === 0 && empty) return <>{empty}</>;
  return (
    <div class="table-scroll">
      <table class="data-table">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.label} scope="col" class={cellClass(column)}>
                {column.actions ? <span class="visually-hidden">{column.label}</span> : column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={rowKey(row)}
              class={onRowClick ? "row-clickable" : undefined}
              tabIndex={onRowClick ? 0 : undefined}
              onClick={onRowClick && (() => onRowClick(row))}
              onKeyDown={onRowClick && ((event) => event.key === "Enter" && event.target === event.currentTarget && onRowClick(row))}
            >
              {columns.map((column) => (
                <td key={column.label} class={cellClass(column)}>{column.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
