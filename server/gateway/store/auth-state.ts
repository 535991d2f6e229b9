// An instance's network auth state in the gateway's store (table gateway_auth_state): what a
// network session needs to reconnect without a new QR scan, readable by whichever replica
// opens the session next.
import type { SQL } from "bun";
import type { AuthStateStore } from "../network/network.ts";

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

  async write(entries: ReadonlyMap<string, string | null>): Promise<void> {
    if (entries.size === 0) return;
    await this.sql.begin(async (tx) => {
      for (const [name, value] of entries) {
        if (value === null) await tx`DELETE FROM gateway_auth_state WHERE instance_id = ${this.instanceId} AND name = ${name}`;
        else
          await tx`INSERT INTO gateway_auth_state (instance_id, name, value) VALUES (${this.instanceId}, ${name}, ${value})
            ON CONFLICT (instance_id, name) DO UPDATE SET value = excluded.value`;
      }
    });
  }

  async clear(): Promise<void> {
    await this.sql`DELETE FROM gateway_auth_state WHERE instance_id = ${this.instanceId}`;
  }
}
