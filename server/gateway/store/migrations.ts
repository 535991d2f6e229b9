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
];
