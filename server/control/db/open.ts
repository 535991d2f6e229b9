import { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import { join } from "node:path";
import * as schema from "./schema.ts";

const migrationsFolder = join(import.meta.dir, "migrations");

export type ControlDb = ReturnType<typeof drizzle<typeof schema>>;

export interface ControlStore {
  db: ControlDb;
  sqlite: Database;
  close(): void;
}

/** Opens (creating if needed) the control-plane SQLite file in WAL mode and applies migrations. */
export function openControlStore(path: string): ControlStore {
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  // Deleted rows are overwritten with zeros, not just unlinked: an erasure's identifiers must
  // leave no bytes behind once it ends (erasure/store-scrub.ts).
  sqlite.exec("PRAGMA secure_delete = ON");
  const db = drizzle(sqlite, { schema });
  migrate(db, { migrationsFolder });
  return { db, sqlite, close: () => sqlite.close() };
}
