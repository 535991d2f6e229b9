// Replicas sharing the store: each announces itself on every supervisor pass; one silent for
// longer than a lease's life is taken for dead (its leases have lapsed by then too).
import type { SQL } from "bun";
import { time } from "../../sql-store/values.ts";

export interface GatewayReplica {
  id: string;
  url: string | null;
  sharding: boolean;
  startedAt: number;
  heartbeatAt: number;
}

interface ReplicaRow {
  id: string;
  url: string | null;
  sharding: number | string;
  started_at: number | string;
  heartbeat_at: number | string;
}

const replica = (row: ReplicaRow): GatewayReplica => ({
  id: row.id,
  url: row.url,
  sharding: Number(row.sharding) === 1,
  startedAt: time(row.started_at)!,
  heartbeatAt: time(row.heartbeat_at)!,
});

export class ReplicaStore {
  constructor(private readonly sql: SQL) {}

  async heartbeat(input: { id: string; url: string | null; sharding: boolean; startedAt: number; now: number }): Promise<void> {
    await this.sql`
      INSERT INTO gateway_replicas (id, url, sharding, started_at, heartbeat_at)
      VALUES (${input.id}, ${input.url}, ${input.sharding ? 1 : 0}, ${input.startedAt}, ${input.now})
      ON CONFLICT (id) DO UPDATE SET url = excluded.url, sharding = excluded.sharding, heartbeat_at = excluded.heartbeat_at`;
  }

  /** Replicas heard from since `since`, oldest first. */
  async live(since: number): Promise<GatewayReplica[]> {
    const rows = await this.sql`SELECT * FROM gateway_replicas WHERE heartbeat_at >= ${since} ORDER BY started_at, id`;
    return (rows as ReplicaRow[]).map(replica);
  }

  async get(id: string): Promise<GatewayReplica | null> {
    const [row] = await this.sql`SELECT * FROM gateway_replicas WHERE id = ${id}`;
    return row ? replica(row as ReplicaRow) : null;
  }

  /** This replica is stopping: the others stop counting it at once. */
  async remove(id: string): Promise<void> {
    await this.sql`DELETE FROM gateway_replicas WHERE id = ${id}`;
  }
}
