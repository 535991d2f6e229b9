// The inbound queue in the gateway's store: one row per event for the project's webhook. Rows
// are kept indefinitely; a payload is dropped once it expires (replay then answers 410). Within
// one conversation only the oldest open delivery is ever due, so order holds while it retries.
import type { SQL } from "bun";
import { count, time } from "../../sql-store/values.ts";

export type DeliveryState = "pending" | "retrying" | "delivered" | "dead";
export const deliveryStates: readonly DeliveryState[] = ["pending", "retrying", "delivered", "dead"];

export interface GatewayDelivery {
  id: string;
  projectId: string;
  instanceId: string | null;
  event: string;
  conversation: string;
  source: string;
  /** The JSON body posted to the webhook; null once expired. */
  payload: string | null;
  payloadExpiresAt: number;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  lastStatus: number | null;
  createdAt: number;
  updatedAt: number;
  deliveredAt: number | null;
  deadAt: number | null;
}

interface DeliveryRow {
  id: string;
  project_id: string;
  instance_id: string | null;
  event: string;
  conversation: string;
  source: string;
  payload: string | null;
  payload_expires_at: number | string;
  state: DeliveryState;
  attempts: number | string;
  next_attempt_at: number | string;
  last_error: string | null;
  last_status: number | string | null;
  created_at: number | string;
  updated_at: number | string;
  delivered_at: number | string | null;
  dead_at: number | string | null;
}

const delivery = (row: DeliveryRow): GatewayDelivery => ({
  id: row.id,
  projectId: row.project_id,
  instanceId: row.instance_id,
  event: row.event,
  conversation: row.conversation,
  source: row.source,
  payload: row.payload,
  payloadExpiresAt: time(row.payload_expires_at)!,
  state: row.state,
  attempts: count(row.attempts),
  nextAttemptAt: time(row.next_attempt_at)!,
  lastError: row.last_error,
  lastStatus: row.last_status === null ? null : count(row.last_status),
  createdAt: time(row.created_at)!,
  updatedAt: time(row.updated_at)!,
  deliveredAt: time(row.delivered_at),
  deadAt: time(row.dead_at),
});

export interface NewDelivery {
  id: string;
  projectId: string;
  instanceId: string | null;
  event: string;
  conversation: string;
  source: string;
  payload: string;
  payloadExpiresAt: number;
  now: number;
}

export class DeliveryStore {
  constructor(private readonly sql: SQL) {}

  /** Stores the event once per source; false when it was stored already (the network sent it twice). */
  async add(input: NewDelivery): Promise<boolean> {
    const rows = await this.sql`
      INSERT INTO gateway_deliveries (id, project_id, instance_id, event, conversation, source, payload, payload_expires_at, state, attempts, next_attempt_at, created_at, updated_at)
      VALUES (${input.id}, ${input.projectId}, ${input.instanceId}, ${input.event}, ${input.conversation}, ${input.source}, ${input.payload}, ${input.payloadExpiresAt}, 'pending', 0, ${input.now}, ${input.now}, ${input.now})
      ON CONFLICT (project_id, source) DO NOTHING RETURNING id`;
    return rows.length === 1;
  }

  async get(id: string): Promise<GatewayDelivery | null> {
    const [row] = await this.sql`SELECT * FROM gateway_deliveries WHERE id = ${id}`;
    return row ? delivery(row as DeliveryRow) : null;
  }

  /** Newest first; `projectId` null lists every project's. */
  async list(projectId: string | null, state: DeliveryState | null, limit: number, after: string | null): Promise<GatewayDelivery[]> {
    const rows = await this.sql`
      SELECT * FROM gateway_deliveries WHERE (CAST(${projectId} AS TEXT) IS NULL OR project_id = ${projectId})
      AND (CAST(${state} AS TEXT) IS NULL OR state = ${state}) AND (CAST(${after} AS TEXT) IS NULL OR id < ${after})
      ORDER BY id DESC LIMIT ${limit}`;
    return (rows as DeliveryRow[]).map(delivery);
  }

  /**
   * Claims what is due now: per conversation its oldest open delivery, when its time has come,
   * of an active project with a webhook URL (a suspended project's and one without a URL are
   * held, not failed). A claim lasts `claimMs`, so a replica that dies mid-post frees it.
   */
  async claimDue(replica: string, now: number, claimMs: number, limit: number): Promise<GatewayDelivery[]> {
    const candidates = (await this.sql`
      SELECT d.id FROM gateway_deliveries d JOIN gateway_projects p ON p.id = d.project_id
      WHERE d.state IN ('pending', 'retrying') AND d.next_attempt_at <= ${now}
      AND (d.claim_expires_at IS NULL OR d.claim_expires_at < ${now})
      AND p.suspended_at IS NULL AND p.webhook_url IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM gateway_deliveries e WHERE e.conversation = d.conversation AND e.state IN ('pending', 'retrying') AND e.id < d.id)
      ORDER BY d.id LIMIT ${limit}`) as { id: string }[];
    if (candidates.length === 0) return [];
    // One statement for the whole batch: on SQLite each statement is a commit waiting for its
    // fsync (bench/gateway measured 1.8 ms each, one per delivery, before this was batched).
    const rows = (await this.sql`
      UPDATE gateway_deliveries SET claimed_by = ${replica}, claim_expires_at = ${now + claimMs}
      WHERE id IN ${this.sql(candidates.map(({ id }) => id))} AND state IN ('pending', 'retrying') AND (claim_expires_at IS NULL OR claim_expires_at < ${now})
      RETURNING *`) as DeliveryRow[];
    return rows.map(delivery).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Records one attempt's end under this replica's claim. */
  async settle(id: string, replica: string, outcome: { state: DeliveryState; lastError: string | null; lastStatus: number | null; nextAttemptAt: number }, now: number): Promise<GatewayDelivery | null> {
    const [row] = await this.sql`
      UPDATE gateway_deliveries SET state = ${outcome.state}, attempts = attempts + 1, last_error = ${outcome.lastError}, last_status = ${outcome.lastStatus},
        next_attempt_at = ${outcome.nextAttemptAt}, claimed_by = NULL, claim_expires_at = NULL, updated_at = ${now},
        delivered_at = ${outcome.state === "delivered" ? now : null}, dead_at = ${outcome.state === "dead" ? now : null}
      WHERE id = ${id} AND claimed_by = ${replica}
      RETURNING *`;
    return row ? delivery(row as DeliveryRow) : null;
  }

  /** Records the 2xx of several deliveries under this replica's claim, in one statement. */
  async settleDelivered(ids: readonly string[], replica: string, status: number, now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.sql`
      UPDATE gateway_deliveries SET state = 'delivered', attempts = attempts + 1, last_error = NULL, last_status = ${status},
        next_attempt_at = ${now}, claimed_by = NULL, claim_expires_at = NULL, updated_at = ${now}, delivered_at = ${now}, dead_at = NULL
      WHERE id IN ${this.sql(ids as string[])} AND claimed_by = ${replica}`;
  }

  /** Puts a dead letter back in the queue with a fresh schedule; null when it is not dead or its payload expired. */
  async requeue(id: string, now: number): Promise<GatewayDelivery | null> {
    const [row] = await this.sql`
      UPDATE gateway_deliveries SET state = 'pending', attempts = 0, next_attempt_at = ${now}, dead_at = NULL, updated_at = ${now}
      WHERE id = ${id} AND state = 'dead' AND payload IS NOT NULL RETURNING *`;
    return row ? delivery(row as DeliveryRow) : null;
  }

  /** Drops the payloads whose time is up; the rows stay. */
  async expirePayloads(now: number): Promise<number> {
    const rows = await this.sql`UPDATE gateway_deliveries SET payload = NULL, updated_at = ${now} WHERE payload IS NOT NULL AND payload_expires_at <= ${now} RETURNING id`;
    return rows.length;
  }

  async countsByState(projectId: string | null): Promise<{ projectId: string; state: DeliveryState; event: string; count: number }[]> {
    const rows = await this.sql`
      SELECT project_id, state, event, COUNT(*) AS n FROM gateway_deliveries WHERE (CAST(${projectId} AS TEXT) IS NULL OR project_id = ${projectId})
      GROUP BY project_id, state, event`;
    return (rows as { project_id: string; state: DeliveryState; event: string; n: number | string }[]).map((row) => ({
      projectId: row.project_id,
      state: row.state,
      event: row.event,
      count: count(row.n),
    }));
  }

  /** Dead letters that died since `since`. */
  async deadSince(since: number): Promise<number> {
    const [row] = await this.sql`SELECT COUNT(*) AS n FROM gateway_deliveries WHERE state = 'dead' AND dead_at >= ${since}`;
    return count((row as { n: number | string }).n);
  }

  /** Attempts that ended since `since`: how many, and how many failed (not delivered). */
  async attemptsSince(since: number): Promise<{ attempts: number; failed: number }> {
    const [row] = await this.sql`
      SELECT COUNT(*) AS attempts, COALESCE(SUM(CASE WHEN last_status IS NULL OR last_status < 200 OR last_status > 299 THEN 1 ELSE 0 END), 0) AS failed
      FROM gateway_deliveries WHERE attempts > 0 AND updated_at >= ${since}`;
    const result = row as { attempts: number | string; failed: number | string };
    return { attempts: count(result.attempts), failed: count(result.failed) };
  }
}
