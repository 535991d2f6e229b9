// Numbers (instances) in the gateway's store: their pairing state, what their session last
// reported, and which replica holds their session (the lease).
import type { SQL } from "bun";
import { time } from "../../sql-store/values.ts";

export type InstanceState = "pending" | "paired" | "retired";
export type ConnectionState = "closed" | "connecting" | "open";

export interface GatewayInstance {
  id: string;
  projectId: string;
  phone: string;
  label: string;
  state: InstanceState;
  connection: ConnectionState;
  /** The project asked for a session (connect) or the number is paired: its owner keeps one open. */
  wantsSession: boolean;
  qrCode: string | null;
  qrAt: number | null;
  lastError: string | null;
  pairedAt: number | null;
  connectedAt: number | null;
  disconnectedAt: number | null;
  retiredAt: number | null;
  owner: string | null;
  leaseExpiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

interface InstanceRow {
  id: string;
  project_id: string;
  phone: string;
  label: string;
  state: InstanceState;
  connection: ConnectionState;
  wants_session: number | string;
  qr_code: string | null;
  qr_at: number | string | null;
  last_error: string | null;
  paired_at: number | string | null;
  connected_at: number | string | null;
  disconnected_at: number | string | null;
  retired_at: number | string | null;
  owner: string | null;
  lease_expires_at: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

const instance = (row: InstanceRow): GatewayInstance => ({
  id: row.id,
  projectId: row.project_id,
  phone: row.phone,
  label: row.label,
  state: row.state,
  connection: row.connection,
  wantsSession: Number(row.wants_session) === 1,
  qrCode: row.qr_code,
  qrAt: time(row.qr_at),
  lastError: row.last_error,
  pairedAt: time(row.paired_at),
  connectedAt: time(row.connected_at),
  disconnectedAt: time(row.disconnected_at),
  retiredAt: time(row.retired_at),
  owner: row.owner,
  leaseExpiresAt: time(row.lease_expires_at),
  createdAt: time(row.created_at)!,
  updatedAt: time(row.updated_at)!,
});

export type InstanceChange = Partial<
  Pick<GatewayInstance, "state" | "connection" | "wantsSession" | "qrCode" | "qrAt" | "lastError" | "pairedAt" | "connectedAt" | "disconnectedAt" | "retiredAt">
>;

const columns: Record<keyof InstanceChange, string> = {
  state: "state",
  connection: "connection",
  wantsSession: "wants_session",
  qrCode: "qr_code",
  qrAt: "qr_at",
  lastError: "last_error",
  pairedAt: "paired_at",
  connectedAt: "connected_at",
  disconnectedAt: "disconnected_at",
  retiredAt: "retired_at",
};

export class InstanceStore {
  constructor(private readonly sql: SQL) {}

  async create(input: { id: string; projectId: string; phone: string; label: string; now: number }): Promise<GatewayInstance> {
    const [row] = await this.sql`
      INSERT INTO gateway_instances (id, project_id, phone, label, state, connection, wants_session, created_at, updated_at)
      VALUES (${input.id}, ${input.projectId}, ${input.phone}, ${input.label}, 'pending', 'closed', 0, ${input.now}, ${input.now})
      RETURNING *`;
    return instance(row as InstanceRow);
  }

  async get(id: string): Promise<GatewayInstance | null> {
    const [row] = await this.sql`SELECT * FROM gateway_instances WHERE id = ${id}`;
    return row ? instance(row as InstanceRow) : null;
  }

  /** The project's instance, or null when it has none with this id (another project's is null too). */
  async ofProject(projectId: string, id: string): Promise<GatewayInstance | null> {
    const [row] = await this.sql`SELECT * FROM gateway_instances WHERE id = ${id} AND project_id = ${projectId}`;
    return row ? instance(row as InstanceRow) : null;
  }

  /** The instance in service (not retired) that holds this phone, in any project. */
  async inServiceWithPhone(phone: string): Promise<GatewayInstance | null> {
    const [row] = await this.sql`SELECT * FROM gateway_instances WHERE phone = ${phone} AND state <> 'retired'`;
    return row ? instance(row as InstanceRow) : null;
  }

  /** Newest first; `projectId` null lists every project's. */
  async list(projectId: string | null, limit: number, after: string | null): Promise<GatewayInstance[]> {
    const rows = await this.sql`
      SELECT * FROM gateway_instances WHERE (CAST(${projectId} AS TEXT) IS NULL OR project_id = ${projectId}) AND (CAST(${after} AS TEXT) IS NULL OR id < ${after})
      ORDER BY id DESC LIMIT ${limit}`;
    return (rows as InstanceRow[]).map(instance);
  }

  /** Every instance of the project in service, oldest first (the pool). */
  async inService(projectId: string): Promise<GatewayInstance[]> {
    const rows = await this.sql`SELECT * FROM gateway_instances WHERE project_id = ${projectId} ORDER BY id`;
    return (rows as InstanceRow[]).map(instance);
  }

  /** Instances that want a session, for the replicas to share out. */
  async wantingSession(): Promise<GatewayInstance[]> {
    const rows = await this.sql`SELECT * FROM gateway_instances WHERE wants_session = 1 AND state <> 'retired' ORDER BY id`;
    return (rows as InstanceRow[]).map(instance);
  }

  async all(): Promise<GatewayInstance[]> {
    return ((await this.sql`SELECT * FROM gateway_instances ORDER BY id`) as InstanceRow[]).map(instance);
  }

  async update(id: string, change: InstanceChange, now: number): Promise<GatewayInstance | null> {
    const values: Record<string, string | number | null> = { updated_at: now };
    for (const [field, value] of Object.entries(change)) values[columns[field as keyof InstanceChange]] = typeof value === "boolean" ? Number(value) : value;
    const [row] = await this.sql`UPDATE gateway_instances SET ${this.sql(values)} WHERE id = ${id} RETURNING *`;
    return row ? instance(row as InstanceRow) : null;
  }

  /**
   * Takes or renews the lease when it is free, expired or already this replica's; null when
   * another replica holds it. One statement, so two replicas cannot both win.
   */
  async claim(id: string, replica: string, now: number, ttlMs: number): Promise<GatewayInstance | null> {
    const [row] = await this.sql`
      UPDATE gateway_instances SET owner = ${replica}, lease_expires_at = ${now + ttlMs}
      WHERE id = ${id} AND state <> 'retired' AND (owner IS NULL OR owner = ${replica} OR lease_expires_at < ${now})
      RETURNING *`;
    return row ? instance(row as InstanceRow) : null;
  }

  /** Gives the lease up (this replica is stopping, or holds more than its share). */
  async release(id: string, replica: string): Promise<void> {
    await this.sql`UPDATE gateway_instances SET owner = NULL, lease_expires_at = NULL, connection = 'closed' WHERE id = ${id} AND owner = ${replica}`;
  }
}
