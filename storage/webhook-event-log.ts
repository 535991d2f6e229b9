// Which revenue events each integration's webhooks have stored, by the event's seed (the
// provider's notification id and the event's place in it), kept in region.sqlite for longer
// than any provider retries a delivery. The derived uuid alone only deduplicates while the
// region's recent-uuid index still holds it (minutes at a busy region), and providers retry for
// days (Stripe 3, Apple about 3, Google Pub/Sub up to 7 by default): without this log a late
// redelivery would store a charge twice. Seeds are provider ids, never personal data.
import type { Database, Statement } from "bun:sqlite";

/** How long a stored event's seed is remembered: past every provider's retries (Pub/Sub keeps messages up to 31 days). */
export const webhookEventMemoryMs = 35 * 24 * 60 * 60 * 1000;
/** Forgetting runs at most this often (one indexed DELETE). */
const forgetIntervalMs = 60 * 60 * 1000;

const schema = `
CREATE TABLE IF NOT EXISTS revenue_webhook_events (
  integration_id TEXT NOT NULL,
  seed TEXT NOT NULL,
  stored_at INTEGER NOT NULL,
  PRIMARY KEY (integration_id, seed)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS revenue_webhook_events_stored_at ON revenue_webhook_events (stored_at);
`;

export class WebhookEventLog {
  private readonly statements: Record<"has" | "remember" | "forget", Statement>;
  private forgottenAt = 0;

  constructor(private readonly db: Database) {
    db.exec(schema);
    this.statements = {
      has: db.query("SELECT 1 FROM revenue_webhook_events WHERE integration_id = ? AND seed = ?"),
      remember: db.query("INSERT OR IGNORE INTO revenue_webhook_events (integration_id, seed, stored_at) VALUES (?, ?, ?)"),
      forget: db.query("DELETE FROM revenue_webhook_events WHERE stored_at < ?"),
    };
  }

  /** The seeds among `seeds` that an earlier delivery stored. */
  storedAlready(integrationId: string, seeds: readonly string[]): Set<string> {
    return new Set(seeds.filter((seed) => this.statements.has.get(integrationId, seed) !== null));
  }

  /** Records that these events are stored (durably: call once ingest has acknowledged them). */
  remember(integrationId: string, seeds: readonly string[], now: number): void {
    this.db.transaction(() => {
      for (const seed of seeds) this.statements.remember.run(integrationId, seed, now);
      if (now - this.forgottenAt >= forgetIntervalMs) {
        this.statements.forget.run(now - webhookEventMemoryMs);
        this.forgottenAt = now;
      }
    })();
  }
}
