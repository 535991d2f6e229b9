// The send queue and its attempts in the gateway's store. A message is claimed by one replica
// at a time (a claim that expires, so a dead replica's message goes back to the queue) and is
// sent to the network under its own id, which the network keeps once.
import type { SQL } from "bun";
import { count, time } from "../../sql-store/values.ts";

export type MessageState = "queued" | "sending" | "sent" | "delivered" | "read" | "failed" | "cancelled";

export interface GatewayMessage {
  id: string;
  projectId: string;
  idempotencyKey: string | null;
  requestHash: string;
  recipient: string;
  kind: string;
  /** JSON of the content (media bytes as base64). */
  content: string;
  contentBytes: number;
  state: MessageState;
  failure: string | null;
  instanceId: string | null;
  attempts: number;
  nextAttemptAt: number;
  createdAt: number;
  updatedAt: number;
  sentAt: number | null;
  deliveredAt: number | null;
  readAt: number | null;
}

interface MessageRow {
  id: string;
  project_id: string;
  idempotency_key: string | null;
  request_hash: string;
  recipient: string;
  kind: string;
  content: string;
  content_bytes: number | string;
  state: MessageState;
  failure: string | null;
  instance_id: string | null;
  attempts: number | string;
  next_attempt_at: number | string;
  created_at: number | string;
  updated_at: number | string;
  sent_at: number | string | null;
  delivered_at: number | string | null;
  read_at: number | string | null;
}

const message = (row: MessageRow): GatewayMessage => ({
  id: row.id,
  projectId: row.project_id,
  idempotencyKey: row.idempotency_key,
  requestHash: row.request_hash,
  recipient: row.recipient,
  kind: row.kind,
  content: row.content,
  contentBytes: count(row.content_bytes),
  state: row.state,
  failure: row.failure,
  instanceId: row.instance_id,
  attempts: count(row.attempts),
  nextAttemptAt: time(row.next_attempt_at)!,
  createdAt: time(row.created_at)!,
  updatedAt: time(row.updated_at)!,
  sentAt: time(row.sent_at),
  deliveredAt: time(row.delivered_at),
  readAt: time(row.read_at),
});

export type SendOutcome = "started" | "accepted" | "duplicate" | "refused" | "error";

export interface GatewaySend {
  id: string;
  projectId: string;
  messageId: string;
  instanceId: string;
  replica: string;
  outcome: SendOutcome;
  error: string | null;
  startedAt: number;
  finishedAt: number | null;
}

interface SendRow {
  id: string;
  project_id: string;
  message_id: string;
  instance_id: string;
  replica: string;
  outcome: SendOutcome;
  error: string | null;
  started_at: number | string;
  finished_at: number | string | null;
}

const send = (row: SendRow): GatewaySend => ({
  id: row.id,
  projectId: row.project_id,
  messageId: row.message_id,
  instanceId: row.instance_id,
  replica: row.replica,
  outcome: row.outcome,
  error: row.error,
  startedAt: time(row.started_at)!,
  finishedAt: time(row.finished_at),
});

/** Messages whose send may still change (the rest are history). */
export const openMessageStates: readonly MessageState[] = ["queued", "sending"];

export class MessageStore {
  constructor(private readonly sql: SQL) {}

  /**
   * Queues a message, or answers the one already queued under the same idempotency key
   * (`created` false). The unique index decides between two concurrent requests.
   */
  async enqueue(input: Omit<GatewayMessage, "state" | "failure" | "instanceId" | "attempts" | "updatedAt" | "sentAt" | "deliveredAt" | "readAt" | "nextAttemptAt">): Promise<{ message: GatewayMessage; created: boolean }> {
    const [row] = await this.sql`
      INSERT INTO gateway_messages (id, project_id, idempotency_key, request_hash, recipient, kind, content, content_bytes, state, attempts, next_attempt_at, created_at, updated_at)
      VALUES (${input.id}, ${input.projectId}, ${input.idempotencyKey}, ${input.requestHash}, ${input.recipient}, ${input.kind}, ${input.content}, ${input.contentBytes}, 'queued', 0, ${input.createdAt}, ${input.createdAt}, ${input.createdAt})
      ON CONFLICT (project_id, idempotency_key) DO NOTHING
      RETURNING *`;
    if (row) return { message: message(row as MessageRow), created: true };
    const [existing] = await this.sql`SELECT * FROM gateway_messages WHERE project_id = ${input.projectId} AND idempotency_key = ${input.idempotencyKey}`;
    return { message: message(existing as MessageRow), created: false };
  }

  async ofProject(projectId: string, id: string): Promise<GatewayMessage | null> {
    const [row] = await this.sql`SELECT * FROM gateway_messages WHERE id = ${id} AND project_id = ${projectId}`;
    return row ? message(row as MessageRow) : null;
  }

  async get(id: string): Promise<GatewayMessage | null> {
    const [row] = await this.sql`SELECT * FROM gateway_messages WHERE id = ${id}`;
    return row ? message(row as MessageRow) : null;
  }

  async list(projectId: string, state: MessageState | null, limit: number, after: string | null): Promise<GatewayMessage[]> {
    const rows = await this.sql`
      SELECT * FROM gateway_messages WHERE project_id = ${projectId}
      AND (CAST(${state} AS TEXT) IS NULL OR state = ${state}) AND (CAST(${after} AS TEXT) IS NULL OR id < ${after})
      ORDER BY id DESC LIMIT ${limit}`;
    return (rows as MessageRow[]).map(message);
  }

  /**
   * Messages that can be sent now through the given projects: queued and due, or claimed by a
   * replica whose claim ran out (it died mid-send), oldest first.
   */
  async due(projectIds: readonly string[], now: number, limit: number): Promise<GatewayMessage[]> {
    if (projectIds.length === 0) return [];
    const rows = await this.sql`
      SELECT * FROM gateway_messages
      WHERE project_id IN ${this.sql(projectIds as string[])}
      AND ((state = 'queued' AND next_attempt_at <= ${now}) OR (state = 'sending' AND claim_expires_at < ${now}))
      ORDER BY id LIMIT ${limit}`;
    return (rows as MessageRow[]).map(message);
  }

  /** Takes these messages for one send each through `instanceId`; those another replica took first are left out. */
  async claimMany(ids: readonly string[], replica: string, instanceId: string, now: number, claimMs: number): Promise<GatewayMessage[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql`
      UPDATE gateway_messages SET state = 'sending', claimed_by = ${replica}, claim_expires_at = ${now + claimMs},
        instance_id = ${instanceId}, attempts = attempts + 1, updated_at = ${now}
      WHERE id IN ${this.sql(ids as string[])} AND ((state = 'queued' AND next_attempt_at <= ${now}) OR (state = 'sending' AND claim_expires_at < ${now}))
      RETURNING *`;
    return (rows as MessageRow[]).map(message).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The sent ones of a number's share, in one statement (`sentAt`: when the share was handed to the network). */
  async settleSent(ids: readonly string[], replica: string, sentAt: number, now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.sql`
      UPDATE gateway_messages SET state = 'sent', failure = NULL, sent_at = ${sentAt}, claimed_by = NULL, claim_expires_at = NULL, updated_at = ${now}
      WHERE id IN ${this.sql(ids as string[])} AND claimed_by = ${replica} AND state = 'sending'`;
  }

  /** `sentAt`: when the attempt handed the message to the network (its receipts come after). */
  async settle(id: string, replica: string, outcome: { state: "sent" | "queued" | "failed"; failure: string | null; nextAttemptAt: number; sentAt: number | null }, now: number): Promise<GatewayMessage | null> {
    const [row] = await this.sql`
      UPDATE gateway_messages SET state = ${outcome.state}, failure = ${outcome.failure}, next_attempt_at = ${outcome.nextAttemptAt},
        sent_at = ${outcome.sentAt}, claimed_by = NULL, claim_expires_at = NULL, updated_at = ${now}
      WHERE id = ${id} AND claimed_by = ${replica} AND state = 'sending'
      RETURNING *`;
    return row ? message(row as MessageRow) : null;
  }

  /**
   * A receipt moves a sent message forward (never back: a late `delivered` after `read` is
   * ignored). It can arrive before the send's own answer is recorded: it then ends the claim too.
   */
  async receipt(id: string, status: "delivered" | "read", at: number, now: number): Promise<GatewayMessage | null> {
    const [row] =
      status === "delivered"
        ? await this.sql`UPDATE gateway_messages SET state = 'delivered', delivered_at = ${at}, sent_at = COALESCE(sent_at, ${at}), claimed_by = NULL, claim_expires_at = NULL, updated_at = ${now}
            WHERE id = ${id} AND state IN ('sent', 'sending') RETURNING *`
        : await this.sql`UPDATE gateway_messages SET state = 'read', read_at = ${at}, delivered_at = COALESCE(delivered_at, ${at}), sent_at = COALESCE(sent_at, ${at}), claimed_by = NULL, claim_expires_at = NULL, updated_at = ${now}
            WHERE id = ${id} AND state IN ('sent', 'sending', 'delivered') RETURNING *`;
    return row ? message(row as MessageRow) : null;
  }

  /**
   * The number left service with attempts cut short on it: they may have reached the network,
   * and only that number could send them again without a risk of a second copy, so they fail.
   */
  async failInterrupted(instanceId: string, failure: string, now: number): Promise<GatewayMessage[]> {
    const rows = await this.sql`
      UPDATE gateway_messages SET state = 'failed', failure = ${failure}, claimed_by = NULL, claim_expires_at = NULL, updated_at = ${now}
      WHERE instance_id = ${instanceId} AND state = 'sending' RETURNING *`;
    return (rows as MessageRow[]).map(message);
  }

  /** Cancels a message still waiting in the queue; null when it is already being sent or done. */
  async cancel(projectId: string, id: string, now: number): Promise<GatewayMessage | null> {
    const [row] = await this.sql`
      UPDATE gateway_messages SET state = 'cancelled', updated_at = ${now}
      WHERE id = ${id} AND project_id = ${projectId} AND state = 'queued' RETURNING *`;
    return row ? message(row as MessageRow) : null;
  }

  /** The number that last sent to this recipient for the project (to keep a conversation on one number). */
  async lastInstanceFor(projectId: string, recipient: string): Promise<string | null> {
    const [row] = await this.sql`
      SELECT instance_id FROM gateway_messages WHERE project_id = ${projectId} AND recipient = ${recipient} AND sent_at IS NOT NULL
      ORDER BY sent_at DESC LIMIT 1`;
    return row ? (row as { instance_id: string }).instance_id : null;
  }

  async recordSendStarts(attempts: readonly { id: string; projectId: string; messageId: string; instanceId: string; replica: string; now: number }[]): Promise<void> {
    if (attempts.length === 0) return;
    const rows = attempts.map((attempt) => ({
      id: attempt.id,
      project_id: attempt.projectId,
      message_id: attempt.messageId,
      instance_id: attempt.instanceId,
      replica: attempt.replica,
      outcome: "started",
      started_at: attempt.now,
    }));
    await this.sql`INSERT INTO gateway_sends ${this.sql(rows)}`;
  }

  async recordSendEnds(ids: readonly string[], outcome: "accepted" | "duplicate", now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.sql`UPDATE gateway_sends SET outcome = ${outcome}, error = NULL, finished_at = ${now} WHERE id IN ${this.sql(ids as string[])}`;
  }

  async recordSendEnd(id: string, outcome: Exclude<SendOutcome, "started">, error: string | null, now: number): Promise<void> {
    await this.sql`UPDATE gateway_sends SET outcome = ${outcome}, error = ${error}, finished_at = ${now} WHERE id = ${id}`;
  }

  async sends(projectId: string, messageId: string | null, limit: number, after: string | null): Promise<GatewaySend[]> {
    const rows = await this.sql`
      SELECT * FROM gateway_sends WHERE project_id = ${projectId}
      AND (CAST(${messageId} AS TEXT) IS NULL OR message_id = ${messageId}) AND (CAST(${after} AS TEXT) IS NULL OR id < ${after})
      ORDER BY id DESC LIMIT ${limit}`;
    return (rows as SendRow[]).map(send);
  }

  /** Accepted sends through the instance since `since` (its rate and warm-up windows). */
  async sentThrough(instanceId: string, since: number): Promise<number[]> {
    const rows = await this.sql`
      SELECT started_at FROM gateway_sends WHERE instance_id = ${instanceId} AND outcome = 'accepted' AND started_at >= ${since} ORDER BY started_at`;
    return (rows as { started_at: number | string }[]).map((row) => time(row.started_at)!);
  }

  /** Messages sent through the instance since `since`: how many were delivered (and the last time) and how many failed. */
  async receiptsThrough(instanceId: string, since: number): Promise<{ delivered: number; failed: number; lastDeliveredAt: number | null }> {
    const [row] = await this.sql`
      SELECT COALESCE(SUM(CASE WHEN delivered_at >= ${since} THEN 1 ELSE 0 END), 0) AS delivered,
        COALESCE(SUM(CASE WHEN state = 'failed' AND updated_at >= ${since} THEN 1 ELSE 0 END), 0) AS failed,
        MAX(delivered_at) AS last_delivered
      FROM gateway_messages WHERE instance_id = ${instanceId}`;
    const result = row as { delivered: number | string; failed: number | string; last_delivered: number | string | null };
    return { delivered: count(result.delivered), failed: count(result.failed), lastDeliveredAt: time(result.last_delivered) };
  }

  /** Per project: messages in each state. */
  async countsByState(projectId: string | null): Promise<{ projectId: string; state: MessageState; count: number }[]> {
    const rows = await this.sql`
      SELECT project_id, state, COUNT(*) AS n FROM gateway_messages WHERE (CAST(${projectId} AS TEXT) IS NULL OR project_id = ${projectId})
      GROUP BY project_id, state`;
    return (rows as { project_id: string; state: MessageState; n: number | string }[]).map((row) => ({ projectId: row.project_id, state: row.state, count: count(row.n) }));
  }

  /** The oldest message still waiting to be sent, per project. */
  async oldestOpen(): Promise<{ projectId: string; createdAt: number }[]> {
    const rows = await this.sql`SELECT project_id, MIN(created_at) AS oldest FROM gateway_messages WHERE state IN ('queued', 'sending') GROUP BY project_id`;
    return (rows as { project_id: string; oldest: number | string }[]).map((row) => ({ projectId: row.project_id, createdAt: time(row.oldest)! }));
  }
}
