// The tables a statement can read and their columns, beside the editor: the view's fixed
// columns and the project environment's property columns (from GET /schema/properties). A click
// types the name at the editor's cursor, quoted when it needs to be.
import type { PropertySchema } from "../../api/sql.ts";
import type { Resource } from "../../hooks/use-resource.ts";
import { ErrorState, Spinner } from "../../ui/states.tsx";
import { sqlIdentifier, sqlTables, type SqlTable } from "./sql-tables.ts";

function TableColumns({ table, onInsert }: { table: SqlTable; onInsert(text: string): void }) {
  return (
    <details class="schema-table" open={table.name === "events"}>
      <summary class="schema-table-name">
        <span>{table.name}</span>
        <span class="schema-count">{table.columns.length}</span>
      </summary>
      <p class="schema-note">{table.description}</p>
      <ul class="schema-columns">
        <li>
          <button type="button" class="schema-item" onClick={() => onInsert(table.name)} aria-label={`Insert table ${table.name}`}>
            <span class="schema-item-name">{table.name}</span>
            <span class="schema-item-type">table</span>
          </button>
        </li>
        {table.columns.map((column) => (
          <li key={column.name}>
            <button type="button" class="schema-item" onClick={() => onInsert(sqlIdentifier(column.name))} aria-label={`Insert column ${column.name}`}>
              <span class="schema-item-name">{column.name}</span>
              <span class="schema-item-type">{column.type}</span>
            </button>
          </li>
        ))}
      </ul>
    </details>
  );
}

export function SqlSchema({ properties, onRetry, onInsert }: { properties: Resource<{ properties: PropertySchema[] }>; onRetry(): void; onInsert(text: string): void }) {
  return (
    <aside class="card sql-schema" aria-label="Tables and columns">
      <h2 class="section-subtitle">Tables</h2>
      {properties.status === "loading" && <p class="schema-note" role="status"><Spinner /> Reading the property columns…</p>}
      {properties.status === "failed" && <ErrorState title="The columns could not be loaded" error={properties.error} onRetry={onRetry} />}
      {properties.status === "ready" && sqlTables(properties.data.properties).map((table) => <TableColumns key={table.name} table={table} onInsert={onInsert} />)}
    </aside>
  );
}
