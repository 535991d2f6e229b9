// The gateway's store: one SQL dialect-neutral schema on Bun's SQL client, which speaks both
// SQLite (the embedded default, one replica) and PostgreSQL (GATEWAY_DATABASE_URL, required
// for more than one replica: leases need a store every replica sees). Queries are written once
// in the SQL both accept (TEXT, BIGINT epoch milliseconds, INTEGER flags, JSON as TEXT,
// INSERT … ON CONFLICT, RETURNING), so the two backends cannot drift apart.
import { SQL } from "bun";
import { gatewayMigrations } from "./migrations.ts";

export type GatewayDialect = "sqlite" | "postgres";

export interface GatewayDatabase {
  sql: SQL;
  dialect: GatewayDialect;
  close(): Promise<void>;
}

/** SQLite waits this long for another connection's write lock before failing (replica-local only). */
const sqliteBusyTimeoutMs = 5_000;

/** `location`: a postgres:// URL, or the path of the SQLite file. */
export async function openGatewayDatabase(location: string): Promise<GatewayDatabase> {
  const dialect: GatewayDialect = /^postgres(ql)?:\/\//.test(location) ? "postgres" : "sqlite";
  const sql = dialect === "postgres" ? new SQL(location) : new SQL({ adapter: "sqlite", filename: location });
  if (dialect === "sqlite") {
    await sql`PRAGMA journal_mode = WAL`;
    await sql.unsafe(`PRAGMA busy_timeout = ${sqliteBusyTimeoutMs}`);
  }
  await migrate(sql);
  return { sql, dialect, close: () => sql.close() };
}

/** Applies the migrations not yet recorded, each in its own transaction, in order. */
async function migrate(sql: SQL): Promise<void> {
  await sql`CREATE TABLE IF NOT EXISTS gateway_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)`;
  const applied = new Set((await sql`SELECT version FROM gateway_migrations`).map((row: { version: number | string }) => Number(row.version)));
  for (const [index, statements] of gatewayMigrations.entries()) {
    const version = index + 1;
    if (applied.has(version)) continue;
    await sql.begin(async (tx) => {
      for (const statement of statements) await tx.unsafe(statement);
      // Two replicas starting at once: the second's insert conflicts and its transaction rolls back.
      await tx`INSERT INTO gateway_migrations (version, applied_at) VALUES (${version}, ${Date.now()})`;
    });
  }
}
