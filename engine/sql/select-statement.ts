// Runs one statement a client wrote, in a sandbox session: it must parse as exactly one
// statement, bind, and be a SELECT (WITH, VALUES, FROM-first, DESCRIBE and SUMMARIZE are
// SELECTs to DuckDB; EXPLAIN, CALL, SET, PRAGMA and every statement that changes something
// are not). Rows are streamed and reading stops one row past the row limit, so a huge result
// is never built; the byte limit then trims what was read. DuckDB's errors become SqlRefusal
// with a kind the caller maps to HTTP.
import { StatementType, type DuckDBConnection, type DuckDBExtractedStatements, type DuckDBPreparedStatement } from "@duckdb/node-api";
import type { DuckDbSession } from "./duckdb.ts";
import { jsonValue, type JsonValue } from "./json-values.ts";

export type SqlParam = string | number | boolean | null;

export interface SelectLimits {
  rowsMax: number;
  /** Bound of the rows' JSON text, in UTF-8 bytes. */
  bytesMax: number;
  /** Epoch ms after which the statement is interrupted. */
  deadline: number;
}

export interface SelectAnswer {
  columns: string[];
  types: string[];
  rows: JsonValue[][];
  /** More rows exist than were returned (the row or byte limit was reached). */
  truncated: boolean;
}

/** Why a statement was not answered: the caller's SQL (`invalid`, `forbidden`), or a limit. */
export type RefusalKind = "invalid" | "forbidden" | "timeout" | "memory";

export class SqlRefusal extends Error {
  constructor(readonly kind: RefusalKind, message: string) {
    super(message);
  }
}

/** Kinds of DuckDB error that the statement itself causes (DuckDB's ExceptionTypeToString names). */
const statementErrorKinds = [
  "Parser", "Syntax", "Binder", "Catalog", "Conversion", "Invalid Input", "Invalid", "Out of Range", "Mismatch Type",
  "Invalid type", "Divide by Zero", "Decimal", "Not implemented", "Expression", "Constraint", "Dependency", "Sequence",
  "Parameter Not Resolved", "Parameter Not Allowed", "Missing Extension", "Unknown Type", "Object Size",
];
const statementError = new RegExp(`^(${statementErrorKinds.join("|")}) Error: `);

/** DuckDB's error as a refusal, or the error itself when the fault is not the statement's (IO, internal). */
function refusal(error: unknown): unknown {
  if (error instanceof SqlRefusal) return error;
  const message = error instanceof Error ? error.message : "";
  if (message.startsWith("Permission Error: ")) return new SqlRefusal("forbidden", message);
  if (message.startsWith("Out of Memory Error: ")) return new SqlRefusal("memory", message);
  if (statementError.test(message)) return new SqlRefusal("invalid", message);
  return error;
}

const extractFailure = "Failed to extract statements: ";

/** The statements of `sql`, parsed (not bound); no statement at all is refused like a parse error. */
async function extract(connection: DuckDBConnection, sql: string): Promise<DuckDBExtractedStatements> {
  try {
    return await connection.extractStatements(sql);
  } catch (error) {
    const message = error instanceof Error && error.message.startsWith(extractFailure) ? error.message.slice(extractFailure.length) : "";
    // With nothing to parse (only blanks or comments) DuckDB gives no error text at all.
    throw statementError.test(message) ? new SqlRefusal("invalid", message) : new SqlRefusal("invalid", "sql holds no statement");
  }
}

function bindParams(prepared: DuckDBPreparedStatement, params: SqlParam[]): void {
  if (params.length !== prepared.parameterCount) {
    throw new SqlRefusal("invalid", `params has ${params.length} value${params.length === 1 ? "" : "s"}; the statement takes ${prepared.parameterCount}`);
  }
  params.forEach((value, at) => {
    const index = at + 1;
    if (value === null) prepared.bindNull(index);
    else if (typeof value === "string") prepared.bindVarchar(index, value);
    else if (typeof value === "boolean") prepared.bindBoolean(index, value);
    // Whole numbers bind as BIGINT so `LIMIT $1` and integer comparisons need no cast.
    else if (Number.isSafeInteger(value)) prepared.bindBigInt(index, BigInt(value));
    else prepared.bindDouble(index, value);
  });
}

/** The rows that fit both limits (`rows` holds one more than rowsMax when there are more). */
function limitRows(rows: JsonValue[][], limits: SelectLimits): { rows: JsonValue[][]; truncated: boolean } {
  let bytes = 2;
  const kept = Math.min(rows.length, limits.rowsMax);
  for (let row = 0; row < kept; row++) {
    bytes += Buffer.byteLength(JSON.stringify(rows[row])) + 1;
    if (bytes > limits.bytesMax) return { rows: rows.slice(0, row), truncated: true };
  }
  return { rows: rows.slice(0, kept), truncated: rows.length > kept };
}

const timeout = () => new SqlRefusal("timeout", "the statement ran past its time limit");

export async function runSelect(session: DuckDbSession, sql: string, params: SqlParam[], limits: SelectLimits): Promise<SelectAnswer> {
  const connection = session.connection;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    connection.interrupt();
  }, Math.max(0, limits.deadline - Date.now()));
  let prepared: DuckDBPreparedStatement | null = null;
  try {
    const statements = await extract(connection, sql);
    if (statements.count > 1) throw new SqlRefusal("invalid", `sql holds ${statements.count} statements; send exactly one SELECT`);
    prepared = await statements.prepare(0);
    if (prepared.statementType !== StatementType.SELECT) {
      throw new SqlRefusal("invalid", `only a SELECT statement can run here; this is ${StatementType[prepared.statementType]}`);
    }
    bindParams(prepared, params);
    // One row past the limit tells whether there are more.
    const reader = await prepared.streamAndReadUntil(limits.rowsMax + 1);
    // An interrupted read may end early as if the result were complete...
    if (timedOut) throw timeout();
    const { rows, truncated } = limitRows(reader.convertRows(jsonValue), limits);
    return { columns: reader.columnNames(), types: reader.columnTypes().map(String), rows, truncated };
  } catch (error) {
    // ... or fail with any message.
    throw timedOut ? timeout() : refusal(error);
  } finally {
    clearTimeout(timer);
    prepared?.destroySync();
  }
}
