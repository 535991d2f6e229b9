// Per-project secrets of the region, in its SQLite file: the key that turns a drop-in distinct
// id that is an email address or phone number into a pseudonym (server/ingest/pseudonyms.ts).
// Created on a project's first need, 32 random bytes, and never changed: the same address must
// give the same pseudonym for as long as the project's data lives, or persons would split.
// Written in the same file as persons, so the WAL's group commit that makes the first event
// using it durable syncs it too. No API reads it. The table is created here, if missing (as
// ingestion-warning-store.ts does), not by a schema version of region-store.ts.
import type { Database, Statement } from "bun:sqlite";

export const pseudonymKeyBytes = 32;

export class ProjectSecrets {
  private readonly known = new Map<string, Uint8Array>();
  private readonly statements: Record<"find" | "add", Statement>;

  constructor(db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS project_secrets (
      project_id TEXT PRIMARY KEY,
      pseudonym_key BLOB NOT NULL,
      created_at TEXT NOT NULL
    ) WITHOUT ROWID`);
    this.statements = {
      find: db.query("SELECT pseudonym_key FROM project_secrets WHERE project_id = ?"),
      add: db.query("INSERT OR IGNORE INTO project_secrets (project_id, pseudonym_key, created_at) VALUES (?, ?, ?)"),
    };
  }

  /** The project's pseudonym key, made on first need. */
  pseudonymKey(projectId: string): Uint8Array {
    let key = this.known.get(projectId);
    if (key) return key;
    let row = this.statements.find.get(projectId) as { pseudonym_key: Uint8Array } | null;
    if (!row) {
      this.statements.add.run(projectId, crypto.getRandomValues(new Uint8Array(pseudonymKeyBytes)), new Date().toISOString());
      row = this.statements.find.get(projectId) as { pseudonym_key: Uint8Array };
    }
    key = row.pseudonym_key;
    this.known.set(projectId, key);
    return key;
  }
}
