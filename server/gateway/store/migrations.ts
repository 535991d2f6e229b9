// The gateway's schema, as statements both SQLite and PostgreSQL run unchanged. Append a new
// migration; never edit one that has shipped. Times are epoch milliseconds (BIGINT).
export const gatewayMigrations: readonly (readonly string[])[] = [
  [
    `CREATE TABLE gateway_projects (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      webhook_url TEXT,
      webhook_secret TEXT NOT NULL,
      suspended_at BIGINT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    `CREATE TABLE gateway_keys (
      id TEXT PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES gateway_projects (id),
      name TEXT NOT NULL,
      secret_hash TEXT NOT NULL UNIQUE,
      secret_last4 TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      revoked_at BIGINT
    )`,
    `CREATE INDEX gateway_keys_project ON gateway_keys (project_id)`,
    `CREATE TABLE gateway_audit (
      id TEXT PRIMARY KEY,
      project_id TEXT,
      actor TEXT NOT NULL,
      action TEXT NOT NULL,
      target TEXT,
      detail TEXT,
      at BIGINT NOT NULL
    )`,
    `CREATE INDEX gateway_audit_project ON gateway_audit (project_id, at)`,
  ],
  [
    // One instance's network auth state (credentials, signal keys) by name, so a restart or
    // another replica resumes the session without a new QR scan.
    `CREATE TABLE gateway_auth_state (
      instance_id TEXT NOT NULL,
      name TEXT NOT NULL,
      value TEXT NOT NULL,
      PRIMARY KEY (instance_id, name)
    )`,
  ],
  [
    // Numbers. `phone` is the number registered (E.164); pairing with another phone is refused.
    // `connection` is what the owning replica last saw; `owner` and `lease_expires_at` say which
    // replica holds the number's session (the lease), renewed by that replica's supervisor.
    `CREATE TABLE gateway_instances (
      id TEXT PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES gateway_projects (id),
      phone TEXT NOT NULL,
      label TEXT NOT NULL,
      state TEXT NOT NULL,
      connection TEXT NOT NULL,
      wants_session INTEGER NOT NULL,
      qr_code TEXT,
      qr_at BIGINT,
      last_error TEXT,
      paired_at BIGINT,
      connected_at BIGINT,
      disconnected_at BIGINT,
      retired_at BIGINT,
      owner TEXT,
      lease_expires_at BIGINT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    `CREATE INDEX gateway_instances_project ON gateway_instances (project_id, id)`,
    `CREATE INDEX gateway_instances_phone ON gateway_instances (phone)`,
    // The send queue. `id` is also the id the message goes to the network with, so a send
    // repeated after a crash is the same message to the network (which keeps one per id).
    `CREATE TABLE gateway_messages (
      id TEXT PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES gateway_projects (id),
      idempotency_key TEXT,
      request_hash TEXT NOT NULL,
      recipient TEXT NOT NULL,
      kind TEXT NOT NULL,
      content TEXT NOT NULL,
      content_bytes BIGINT NOT NULL,
      state TEXT NOT NULL,
      failure TEXT,
      instance_id TEXT,
      attempts INTEGER NOT NULL,
      next_attempt_at BIGINT NOT NULL,
      claimed_by TEXT,
      claim_expires_at BIGINT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      sent_at BIGINT,
      delivered_at BIGINT,
      read_at BIGINT
    )`,
    `CREATE UNIQUE INDEX gateway_messages_idempotency ON gateway_messages (project_id, idempotency_key)`,
    `CREATE INDEX gateway_messages_project ON gateway_messages (project_id, id)`,
    `CREATE INDEX gateway_messages_due ON gateway_messages (state, next_attempt_at)`,
    `CREATE INDEX gateway_messages_recipient ON gateway_messages (project_id, recipient, sent_at)`,
    // Every outbound attempt, written before the network is called and finished after.
    `CREATE TABLE gateway_sends (
      id TEXT PRIMARY KEY,
      project_id TEXT NOT NULL,
      message_id TEXT NOT NULL,
      instance_id TEXT NOT NULL,
      replica TEXT NOT NULL,
      outcome TEXT NOT NULL,
      error TEXT,
      started_at BIGINT NOT NULL,
      finished_at BIGINT
    )`,
    `CREATE INDEX gateway_sends_project ON gateway_sends (project_id, id)`,
    `CREATE INDEX gateway_sends_instance ON gateway_sends (instance_id, started_at)`,
    // The inbound queue: one row per event to the project's webhook, kept indefinitely; the
    // payload is dropped when it expires. `source` de-duplicates what the network delivers twice.
    `CREATE TABLE gateway_deliveries (
      id TEXT PRIMARY KEY,
      project_id TEXT NOT NULL REFERENCES gateway_projects (id),
      instance_id TEXT,
      event TEXT NOT NULL,
      conversation TEXT NOT NULL,
      source TEXT NOT NULL,
      payload TEXT,
      payload_expires_at BIGINT NOT NULL,
      state TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      next_attempt_at BIGINT NOT NULL,
      last_error TEXT,
      last_status INTEGER,
      claimed_by TEXT,
      claim_expires_at BIGINT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      delivered_at BIGINT,
      dead_at BIGINT
    )`,
    `CREATE UNIQUE INDEX gateway_deliveries_source ON gateway_deliveries (project_id, source)`,
    `CREATE INDEX gateway_deliveries_project ON gateway_deliveries (project_id, id)`,
    `CREATE INDEX gateway_deliveries_due ON gateway_deliveries (state, next_attempt_at)`,
    `CREATE INDEX gateway_deliveries_conversation ON gateway_deliveries (conversation, state, id)`,
    `CREATE INDEX gateway_deliveries_expiry ON gateway_deliveries (payload_expires_at)`,
    // Replicas sharing the store announce themselves; a silent one is dead after a lease's time.
    `CREATE TABLE gateway_replicas (
      id TEXT PRIMARY KEY,
      url TEXT,
      sharding INTEGER NOT NULL,
      started_at BIGINT NOT NULL,
      heartbeat_at BIGINT NOT NULL
    )`,
    // The alert rules' last state, so a transition is announced once however many replicas run.
    `CREATE TABLE gateway_alerts (
      rule TEXT PRIMARY KEY,
      firing INTEGER NOT NULL,
      since BIGINT,
      detail TEXT,
      changed_at BIGINT NOT NULL
    )`,
    `CREATE TABLE gateway_alert_posts (
      id TEXT PRIMARY KEY,
      rule TEXT NOT NULL,
      transition TEXT NOT NULL,
      body TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      attempts INTEGER NOT NULL,
      posted_at BIGINT,
      last_error TEXT
    )`,
  ],
];
