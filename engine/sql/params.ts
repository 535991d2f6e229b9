// Parameters of a compiled statement ($1, $2, ... in DuckDB's syntax) and safe quoting of the
// few names that must be spelled inside the SQL text (column names from property keys).

export class Params {
  readonly values: (string | number | boolean)[] = [];

  add(value: string | number | boolean): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** A double-quoted SQL identifier. */
export const identifier = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** A single-quoted SQL string literal (for file paths in a view definition, never user values in queries). */
export const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;
