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
  [
    // An accepted email: what the sender asked (addresses, subject, tags) for search and the
    // API, and the composed message (`message`, latin1 text of the MIME bytes, which are 7-bit
    // after nodemailer's transfer encodings) that every delivery attempt signs and sends.
    // `message` becomes NULL when the plan's log retention drops the content.
    `CREATE TABLE mail_emails (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES mail_tenants (id),
      domain_id TEXT NOT NULL,
      key_id TEXT NOT NULL,
      from_address TEXT NOT NULL,
      from_header TEXT NOT NULL,
      to_addresses TEXT NOT NULL,
      cc_addresses TEXT NOT NULL,
      bcc_addresses TEXT NOT NULL,
      reply_to TEXT NOT NULL,
      subject TEXT NOT NULL,
      tags TEXT NOT NULL,
      template_id TEXT,
      message_id TEXT NOT NULL,
      message TEXT,
      message_bytes BIGINT NOT NULL,
      status TEXT NOT NULL,
      scheduled_at BIGINT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL
    )`,
    `CREATE INDEX mail_emails_tenant ON mail_emails (tenant_id, created_at, id)`,
    `CREATE INDEX mail_emails_scheduled ON mail_emails (status, scheduled_at)`,
    `CREATE INDEX mail_emails_message_id ON mail_emails (message_id)`,
    // One row per envelope recipient: its own state, the next attempt, a lease while a worker
    // holds it (so a killed worker's recipients come back), and the last answer with its class.
    // Written before its email (no foreign key): the email row is what makes them visible to the
    // queue, so a crash between the two statements leaves rows no pass ever reads.
    `CREATE TABLE mail_recipients (
      email_id TEXT NOT NULL,
      address TEXT NOT NULL,
      tenant_id TEXT NOT NULL,
      domain TEXT NOT NULL,
      status TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      next_attempt_at BIGINT,
      lease_owner TEXT,
      lease_until BIGINT,
      code INTEGER,
      enhanced_code TEXT,
      reply_text TEXT,
      mx_host TEXT,
      bounce_class TEXT,
      action TEXT,
      updated_at BIGINT NOT NULL,
      PRIMARY KEY (email_id, address)
    )`,
    `CREATE INDEX mail_recipients_due ON mail_recipients (status, next_attempt_at)`,
    `CREATE INDEX mail_recipients_address ON mail_recipients (tenant_id, address)`,
    // Every SMTP attempt for one recipient domain of one email, with its whole conversation.
    `CREATE TABLE mail_attempts (
      id TEXT PRIMARY KEY,
      email_id TEXT NOT NULL REFERENCES mail_emails (id),
      domain TEXT NOT NULL,
      started_at BIGINT NOT NULL,
      duration_ms BIGINT NOT NULL,
      results TEXT NOT NULL,
      transcript TEXT NOT NULL,
      tls INTEGER NOT NULL,
      answered_by TEXT
    )`,
    `CREATE INDEX mail_attempts_email ON mail_attempts (email_id, started_at)`,
    // Every hop of every email and every domain transition: the email's history in the API and
    // the source of webhook deliveries (fanned out once to the endpoints subscribed then).
    `CREATE TABLE mail_events (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL,
      type TEXT NOT NULL,
      email_id TEXT,
      domain_id TEXT,
      recipient TEXT,
      data TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      fanned_out INTEGER NOT NULL
    )`,
    `CREATE INDEX mail_events_email ON mail_events (email_id, created_at)`,
    `CREATE INDEX mail_events_fan_out ON mail_events (fanned_out, created_at)`,
    `CREATE INDEX mail_events_tenant ON mail_events (tenant_id, created_at)`,
    // Addresses a tenant does not send to: automatic (hard bounce, complaint) or by the API.
    `CREATE TABLE mail_suppressions (
      tenant_id TEXT NOT NULL,
      address TEXT NOT NULL,
      reason TEXT NOT NULL,
      email_id TEXT,
      bounce_class TEXT,
      detail TEXT,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (tenant_id, address)
    )`,
    // Idempotency-Key: the request's digest and the answer given, replayed for 24 hours.
    `CREATE TABLE mail_idempotency (
      tenant_id TEXT NOT NULL,
      idempotency_key TEXT NOT NULL,
      request_hash TEXT NOT NULL,
      status INTEGER NOT NULL,
      response TEXT NOT NULL,
      created_at BIGINT NOT NULL,
      PRIMARY KEY (tenant_id, idempotency_key)
    )`,
  ],
  [
    // A tenant's webhook endpoint: where to post, the event types it subscribes to (a JSON
    // array, never empty) and its signing secret. The secret is kept as it is, not hashed: each
    // delivery is signed with it (the API shows it only when it is made or rotated).
    `CREATE TABLE mail_webhooks (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES mail_tenants (id),
      url TEXT NOT NULL,
      event_types TEXT NOT NULL,
      secret TEXT NOT NULL,
      enabled INTEGER NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      deleted_at BIGINT
    )`,
    `CREATE INDEX mail_webhooks_tenant ON mail_webhooks (tenant_id, id)`,
    // One event for one endpoint: `pending` (due at next_attempt_at) until a 2xx makes it
    // `delivered` or the last retry makes it `failed`. A pass leases what it posts, so the work
    // of a process killed mid-post comes back when the lease runs out. `attempts` counts the
    // attempts since it was last queued (the retry schedule's position).
    `CREATE TABLE mail_webhook_deliveries (
      id TEXT PRIMARY KEY,
      webhook_id TEXT NOT NULL REFERENCES mail_webhooks (id),
      tenant_id TEXT NOT NULL,
      event_id TEXT NOT NULL REFERENCES mail_events (id),
      event_type TEXT NOT NULL,
      state TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      next_attempt_at BIGINT NOT NULL,
      lease_owner TEXT,
      lease_until BIGINT,
      last_status INTEGER,
      last_error TEXT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      delivered_at BIGINT,
      UNIQUE (webhook_id, event_id)
    )`,
    `CREATE INDEX mail_webhook_deliveries_due ON mail_webhook_deliveries (state, next_attempt_at)`,
    `CREATE INDEX mail_webhook_deliveries_webhook ON mail_webhook_deliveries (webhook_id, id)`,
    // Every HTTP attempt of a delivery: when, how long, the status or the error, and the start
    // of the receiver's answer.
    `CREATE TABLE mail_webhook_attempts (
      id TEXT PRIMARY KEY,
      delivery_id TEXT NOT NULL REFERENCES mail_webhook_deliveries (id),
      started_at BIGINT NOT NULL,
      duration_ms BIGINT NOT NULL,
      status INTEGER,
      error TEXT,
      response_excerpt TEXT
    )`,
    `CREATE INDEX mail_webhook_attempts_delivery ON mail_webhook_attempts (delivery_id, id)`,
  ],
  [
    // Plans and usage: each tenant's plan (docs/mail.md, "Plans and limits"), and its emails
    // counted per calendar month in UTC ('YYYY-MM'), which a send reserves in one statement.
    `ALTER TABLE mail_tenants ADD COLUMN plan TEXT NOT NULL DEFAULT 'free'`,
    `CREATE TABLE mail_usage (
      tenant_id TEXT NOT NULL REFERENCES mail_tenants (id),
      month TEXT NOT NULL,
      emails BIGINT NOT NULL,
      PRIMARY KEY (tenant_id, month)
    )`,
    // The retention sweeper finds idempotency rows past 24 hours without reading the others.
    `CREATE INDEX mail_idempotency_created ON mail_idempotency (created_at)`,
  ],
  [
    // Stored templates a send names by `template.id`: the tenant's own alias (unique among its
    // live templates, so a deleted one's alias can be used again), with the internal `row_id` as
    // the key. `variables` (a JSON array) is the placeholders used, kept so a list need not read
    // the bodies; `revision` lets an update apply only to the version it read.
    `CREATE TABLE mail_templates (
      row_id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL REFERENCES mail_tenants (id),
      id TEXT NOT NULL,
      name TEXT NOT NULL,
      subject TEXT,
      html TEXT,
      text TEXT,
      variables TEXT NOT NULL,
      revision INTEGER NOT NULL,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      deleted_at BIGINT
    )`,
    `CREATE UNIQUE INDEX mail_templates_live_id ON mail_templates (tenant_id, id) WHERE deleted_at IS NULL`,
  ],
  [
    // Mail our inbound SMTP server accepted for a tenant's receiving domain: once per tenant
    // (with that tenant's envelope recipients only), parsed fields for the API and webhooks,
    // and the message itself (`raw`, latin1 text of its bytes, so it is given back byte for byte).
    `CREATE TABLE mail_inbound (
      id TEXT PRIMARY KEY,
      tenant_id TEXT NOT NULL,
      domain_id TEXT NOT NULL,
      envelope_from TEXT NOT NULL,
      envelope_to TEXT NOT NULL,
      message_id TEXT,
      from_header TEXT NOT NULL,
      from_address TEXT,
      to_addresses TEXT NOT NULL,
      cc_addresses TEXT NOT NULL,
      subject TEXT NOT NULL,
      text_body TEXT,
      html_body TEXT,
      attachments TEXT NOT NULL,
      raw TEXT NOT NULL,
      size_bytes BIGINT NOT NULL,
      spf TEXT NOT NULL,
      dkim TEXT NOT NULL,
      dkim_signatures TEXT NOT NULL,
      created_at BIGINT NOT NULL
    )`,
    `CREATE INDEX mail_inbound_tenant ON mail_inbound (tenant_id, id)`,
    `CREATE INDEX mail_inbound_from ON mail_inbound (tenant_id, from_address, id)`,
  ],
];
