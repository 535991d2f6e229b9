// An instance's network auth state in the gateway's store (table gateway_auth_state): what a
// network session needs to reconnect without a new QR scan, readable by whichever replica
// opens the session next.
import type { SQL } from "bun";
import type { AuthStateStore } from "../network/network.ts";

/** Rows per statement, well under SQLite's and PostgreSQL's limits on bound parameters. */
const rowsPerStatementMax = 1_000;

export class SqlAuthStateStore implements AuthStateStore {
  constructor(
    private readonly sql: SQL,
    private readonly instanceId: string,
  ) {}

  async read(names: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    if (names.length === 0) return found;
    const rows = (await this.sql`SELECT name, value FROM gateway_auth_state WHERE instance_id = ${this.instanceId} AND name IN ${this.sql(names as string[])}`) as { name: string; value: string }[];
    for (const row of rows) found.set(row.name, row.value);
    return found;
  }

  /**
   * Writes and deletes by name. Not one transaction: on SQLite a transaction spans the one
   * connection every other query shares, so a concurrent write (a queued message already
   * answered 202) would join it and be lost if it rolled back. Each name is independent: a
   * crash between the two statements leaves every name either old or new.
   */
  async write(entries: ReadonlyMap<string, string | null>): Promise<void> {
    const upserts = [...entries].filter(([, value]) => value !== null).map(([name, value]) => ({ instance_id: this.instanceId, name, value: value! }));
    const deletions = [...entries].filter(([, value]) => value === null).map(([name]) => name);
    for (let start = 0; start < upserts.length; start += rowsPerStatementMax) {
      await this.sql`INSERT INTO gateway_auth_state ${this.sql(upserts.slice(start, start + rowsPerStatementMax))}
        ON CONFLICT (instance_id, name) DO UPDATE SET value = excluded.value`;
    }
    for (let start = 0; start < deletions.length; start += rowsPerStatementMax) {
      await this.sql`DELETE FROM gateway_auth_state WHERE instance_id = ${this.instanceId} AND name IN ${this.sql(deletions.slice(start, start + rowsPerStatementMax))}`;
    }
  }

  async clear(): Promise<void> {
    await this.sql`DELETE FROM gateway_auth_state WHERE instance_id = ${this.instanceId}`;
  }
}
