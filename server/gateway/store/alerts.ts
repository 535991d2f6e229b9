// The alert rules' last state and the posts announcing their transitions. A transition is
// recorded by the one replica whose conditional update changes the state, so it is announced
// once however many replicas evaluate the rule.
import type { SQL } from "bun";
import { count, time } from "../../sql-store/values.ts";

export interface StoredAlert {
  rule: string;
  firing: boolean;
  since: number | null;
  detail: string | null;
}

export interface AlertPost {
  id: string;
  rule: string;
  transition: "started" | "cleared";
  body: string;
  attempts: number;
}

export class AlertStore {
  constructor(private readonly sql: SQL) {}

  async all(): Promise<Map<string, StoredAlert>> {
    const rows = (await this.sql`SELECT rule, firing, since, detail FROM gateway_alerts`) as { rule: string; firing: number | string; since: number | string | null; detail: string | null }[];
    return new Map(rows.map((row) => [row.rule, { rule: row.rule, firing: Number(row.firing) === 1, since: time(row.since), detail: row.detail }]));
  }

  /**
   * Moves the rule to `firing` if it was not already there and records the post announcing it;
   * false when nothing changed (or another replica changed it first). The conditional update
   * decides the one replica that announces; the two statements are not one transaction (on
   * SQLite a transaction would take in every concurrent query of the shared connection), so a
   * crash between them loses that one post, never the alert's state.
   */
  async transition(rule: string, firing: boolean, detail: string | null, now: number, post: { id: string; transition: "started" | "cleared"; body: string }): Promise<boolean> {
    await this.sql`INSERT INTO gateway_alerts (rule, firing, since, detail, changed_at) VALUES (${rule}, 0, ${null}, ${null}, ${now}) ON CONFLICT (rule) DO NOTHING`;
    const changed = await this.sql`
      UPDATE gateway_alerts SET firing = ${firing ? 1 : 0}, since = ${firing ? now : null}, detail = ${detail}, changed_at = ${now}
      WHERE rule = ${rule} AND firing = ${firing ? 0 : 1} RETURNING rule`;
    if (changed.length === 0) return false;
    await this.sql`INSERT INTO gateway_alert_posts (id, rule, transition, body, created_at, attempts) VALUES (${post.id}, ${rule}, ${post.transition}, ${post.body}, ${now}, 0)`;
    return true;
  }

  /** Keeps a firing rule's detail current (no transition). */
  async refresh(rule: string, detail: string | null): Promise<void> {
    await this.sql`UPDATE gateway_alerts SET detail = ${detail} WHERE rule = ${rule} AND firing = 1`;
  }

  async unposted(attemptsMax: number): Promise<AlertPost[]> {
    const rows = (await this.sql`SELECT id, rule, transition, body, attempts FROM gateway_alert_posts WHERE posted_at IS NULL AND attempts < ${attemptsMax} ORDER BY id`) as {
      id: string;
      rule: string;
      transition: "started" | "cleared";
      body: string;
      attempts: number | string;
    }[];
    return rows.map((row) => ({ ...row, attempts: count(row.attempts) }));
  }

  /** Takes the post for one attempt; false when another replica took this attempt. */
  async claim(id: string, attempts: number): Promise<boolean> {
    const rows = await this.sql`UPDATE gateway_alert_posts SET attempts = attempts + 1 WHERE id = ${id} AND attempts = ${attempts} AND posted_at IS NULL RETURNING id`;
    return rows.length === 1;
  }

  async posted(id: string, now: number): Promise<void> {
    await this.sql`UPDATE gateway_alert_posts SET posted_at = ${now}, last_error = NULL WHERE id = ${id}`;
  }

  async failed(id: string, error: string): Promise<void> {
    await this.sql`UPDATE gateway_alert_posts SET last_error = ${error} WHERE id = ${id}`;
  }
}
