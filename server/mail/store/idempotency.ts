// Idempotency-Key records: the request's digest and the answer it got. A request claims its key
// with the answer it is about to give (ids made in advance) before it writes anything, so a
// retry after a crash between the write and the finish finds the emails already written and
// answers them instead of sending twice.
import type { SQL } from "bun";
import { time } from "../../sql-store/values.ts";

/** A claimed key whose request has not finished. */
export const inProgressStatus = 0;

export interface IdempotencyRecord {
  requestHash: string;
  /** inProgressStatus until the request finished, then the answer's HTTP status. */
  status: number;
  response: unknown;
  createdAt: number;
}

export class IdempotencyStore {
  constructor(private readonly sql: SQL) {}

  /** Claims the key; null when claimed, else the record that holds it. */
  async claim(tenantId: string, key: string, requestHash: string, plannedResponse: unknown, now: number): Promise<IdempotencyRecord | null> {
    const inserted = await this.sql`
      INSERT INTO mail_idempotency (tenant_id, idempotency_key, request_hash, status, response, created_at)
      VALUES (${tenantId}, ${key}, ${requestHash}, ${inProgressStatus}, ${JSON.stringify(plannedResponse)}, ${now})
      ON CONFLICT (tenant_id, idempotency_key) DO NOTHING RETURNING idempotency_key`;
    if (inserted.length > 0) return null;
    return (await this.get(tenantId, key)) ?? this.claim(tenantId, key, requestHash, plannedResponse, now);
  }

  async get(tenantId: string, key: string): Promise<IdempotencyRecord | null> {
    const [row] = await this.sql`SELECT * FROM mail_idempotency WHERE tenant_id = ${tenantId} AND idempotency_key = ${key}`;
    return row ? { requestHash: String(row.request_hash), status: Number(row.status), response: JSON.parse(String(row.response)), createdAt: time(row.created_at)! } : null;
  }

  async finish(tenantId: string, key: string, status: number, response: unknown): Promise<void> {
    await this.sql`UPDATE mail_idempotency SET status = ${status}, response = ${JSON.stringify(response)} WHERE tenant_id = ${tenantId} AND idempotency_key = ${key}`;
  }

  /** Frees the key (its request failed before writing anything, or the record expired) if it is still the record claimed at `createdAt`. */
  async release(tenantId: string, key: string, createdAt: number): Promise<void> {
    await this.sql`DELETE FROM mail_idempotency WHERE tenant_id = ${tenantId} AND idempotency_key = ${key} AND created_at = ${createdAt}`;
  }
}
