// Where DuckDB says a statement went wrong: its parser and binder messages end with the line
// (`LINE 2:   nope` and a caret under the place). The route passes the message on as it is.
const linePattern = /^LINE (\d+):/m;

/** The 1-based line an error message names, if it names one. */
export function errorLine(message: string): number | null {
  const match = linePattern.exec(message);
  return match ? Number(match[1]) : null;
}
