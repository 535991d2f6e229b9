// The mail service's schema, as statements both SQLite and PostgreSQL run unchanged. Append a
// new migration; never edit one that has shipped. Times are epoch milliseconds (BIGINT).
export const mailMigrations: readonly (readonly string[])[] = [
  [
    `CREATE TABLE mail_tenants (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
    // A key is `full` (everything of its tenant) or `sending` (POST /v1/emails only, optionally
    // from one domain); only its SHA-256 is kept.
    `CREATE TABLE mail_keys (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES mail_tenants (id),
      name TEXT NOT NULL,
      permission TEXT NOT NULL,
      domain_id TEXT,
      secret_hash TEXT NOT NULL UNIQUE,
      secret_last4 TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      revoked_at BIGINT
    )`,
    `CREATE INDEX mail_keys_tenant ON mail_keys (tenant_id, id)`,
    // A sending domain: its DKIM key pair (the private key signs every message from it), the
    // records to publish, and what the last DNS check found.
    `CREATE TABLE mail_domains (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES mail_tenants (id),
      name TEXT NOT NULL,
      status TEXT NOT NULL,
      dkim_selector TEXT NOT NULL,
      dkim_private_key TEXT NOT NULL,
      dkim_public_key TEXT NOT NULL,
      receiving INTEGER NOT NULL,
      record_checks TEXT,
      failure TEXT,
      checked_at BIGINT,
      verified_at BIGINT,
      created_at BIGINT NOT NULL,
      deleted_at BIGINT
    )`,
    `CREATE INDEX mail_domains_tenant ON mail_domains (tenant_id, id)`,
    `CREATE INDEX mail_domains_name ON mail_domains (name)`,
  ],
];
