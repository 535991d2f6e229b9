// A service's own store on Bun's SQL client, which speaks both SQLite (the embedded default,
// one replica) and PostgreSQL (a database URL: required when replicas share the store). Each
// service writes its statements once in the SQL both accept (TEXT, BIGINT epoch milliseconds,
// INTEGER flags, JSON as TEXT, INSERT … ON CONFLICT, RETURNING), so the backends cannot drift.
import { SQL } from "bun";

export type SqlDialect = "sqlite" | "postgres";

export interface SqlStore {
  sql: SQL;
  dialect: SqlDialect;
  close(): Promise<void>;
}

/** SQLite waits this long for another connection's write lock before failing (replica-local only). */
const sqliteBusyTimeoutMs = 5_000;

export const isPostgresUrl = (location: string) => /^postgres(ql)?:\/\//.test(location);

/**
 * Opens `location` (a postgres:// URL, or the path of the SQLite file) and applies the
 * migrations not yet recorded in `migrationsTable`, each in its own transaction, in order.
 * Append a migration; never edit one that has shipped.
 */
export async function openSqlStore(location: string, migrations: readonly (readonly string[])[], migrationsTable: string): Promise<SqlStore> {
  const dialect: SqlDialect = isPostgresUrl(location) ? "postgres" : "sqlite";
  const sql = dialect === "postgres" ? new SQL(location) : new SQL({ adapter: "sqlite", filename: location });
  if (dialect === "sqlite") {
    await sql`PRAGMA journal_mode = WAL`;
    await sql.unsafe(`PRAGMA busy_timeout = ${sqliteBusyTimeoutMs}`);
  }
  await migrate(sql, migrations, migrationsTable);
  return { sql, dialect, close: () => sql.close() };
}

async function migrate(sql: SQL, migrations: readonly (readonly string[])[], table: string): Promise<void> {
  if (!/^[a-z_]+$/.test(table)) throw new Error(`migrations table name "${table}" must be lower-case letters and underscores`);
  await sql.unsafe(`CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`);
  const applied = new Set(((await sql.unsafe(`SELECT version FROM ${table}`)) as { version: number | string }[]).map((row) => Number(row.version)));
  for (const [index, statements] of migrations.entries()) {
    const version = index + 1;
    if (applied.has(version)) continue;
    // At start-up, before anything else uses the connection, so the transaction takes in nothing else.
    await sql.begin(async (tx) => {
      for (const statement of statements) await tx.unsafe(statement);
      // Two replicas starting at once: the second's insert conflicts and its transaction rolls back.
      await tx.unsafe(`INSERT INTO ${table} (version, applied_at) VALUES ($1, $2)`, [version, Date.now()]);
    });
  }
}
