// Control-plane schema. Ids are UUID text, timestamps RFC 3339 text (UTC), so rows map to
// DTOs without conversion. Migrations are generated from this file by drizzle-kit.
import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import type { RuleTarget, Thresholds } from "../../findings/findings-types.ts";

const createdAt = () => text("created_at").notNull();

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name").notNull(),
  passwordHash: text("password_hash").notNull(),
  emailVerifiedAt: text("email_verified_at"),
  createdAt: createdAt(),
});

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id),
    tokenHash: text("token_hash").notNull().unique(),
    createdAt: createdAt(),
    expiresAt: text("expires_at").notNull(),
    lastSeenAt: text("last_seen_at").notNull(),
    revokedAt: text("revoked_at"),
    location: text("location"),
    userAgent: text("user_agent"),
  },
  (table) => [index("sessions_user_idx").on(table.userId)],
);

/** Single-use tokens sent by mail: password reset, email verification, invitations. */
export const emailTokens = sqliteTable("email_tokens", {
  id: text("id").primaryKey(),
  kind: text("kind", { enum: ["password_reset", "verify_email", "invitation"] }).notNull(),
  userId: text("user_id"),
  invitationId: text("invitation_id"),
  tokenHash: text("token_hash").notNull().unique(),
  createdAt: createdAt(),
  expiresAt: text("expires_at").notNull(),
  usedAt: text("used_at"),
});

export const orgs = sqliteTable("orgs", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  slug: text("slug").notNull().unique(),
  createdAt: createdAt(),
});

export const memberships = sqliteTable(
  "memberships",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => orgs.id),
    userId: text("user_id").notNull().references(() => users.id),
    role: text("role", { enum: ["viewer", "member", "admin", "owner"] }).notNull(),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex("memberships_org_user_idx").on(table.orgId, table.userId)],
);

export const invitations = sqliteTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => orgs.id),
    email: text("email").notNull(),
    role: text("role", { enum: ["viewer", "member", "admin", "owner"] }).notNull(),
    status: text("status", { enum: ["pending", "accepted", "revoked"] }).notNull(),
    invitedBy: text("invited_by").notNull(),
    expiresAt: text("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (table) => [index("invitations_org_idx").on(table.orgId)],
);

export const projects = sqliteTable(
  "projects",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => orgs.id),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    region: text("region").notNull(),
    currency: text("currency").notNull(),
    timezone: text("timezone").notNull(),
    retentionDays: integer("retention_days").notNull(),
    dataId: integer("data_id").notNull().unique(),
    createdAt: createdAt(),
    deletedAt: text("deleted_at"),
  },
  (table) => [index("projects_org_idx").on(table.orgId)],
);

export const environments = sqliteTable(
  "environments",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    name: text("name").notNull(),
    isDefault: integer("is_default", { mode: "boolean" }).notNull(),
  },
  (table) => [uniqueIndex("environments_project_name_idx").on(table.projectId, table.name)],
);

export const publicKeys = sqliteTable(
  "public_keys",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    environment: text("environment").notNull(),
    key: text("key").notNull().unique(),
    allowedBundleIds: text("allowed_bundle_ids", { mode: "json" }).$type<string[]>().notNull(),
    allowedOrigins: text("allowed_origins", { mode: "json" }).$type<string[]>().notNull(),
    registrySynced: integer("registry_synced", { mode: "boolean" }).notNull(),
    createdAt: createdAt(),
    revokedAt: text("revoked_at"),
  },
  (table) => [index("public_keys_project_idx").on(table.projectId)],
);

export const accessTokens = sqliteTable(
  "access_tokens",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id),
    orgId: text("org_id").notNull().references(() => orgs.id),
    name: text("name").notNull(),
    secretHash: text("secret_hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    projectIds: text("project_ids", { mode: "json" }).$type<string[] | null>(),
    createdAt: createdAt(),
    expiresAt: text("expires_at"),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
  },
  (table) => [index("access_tokens_user_idx").on(table.userId)],
);

export const idempotencyRecords = sqliteTable(
  "idempotency_records",
  {
    tokenId: text("token_id").notNull(),
    key: text("key").notNull(),
    fingerprint: text("fingerprint").notNull(),
    state: text("state", { enum: ["in_progress", "done"] }).notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex("idempotency_token_key_idx").on(table.tokenId, table.key)],
);

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orgId: text("org_id"),
    projectId: text("project_id"),
    actorType: text("actor_type", { enum: ["user", "token", "anonymous"] }).notNull(),
    actorId: text("actor_id"),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id"),
    before: text("before", { mode: "json" }),
    after: text("after", { mode: "json" }),
    createdAt: text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`),
  },
  (table) => [index("audit_log_org_idx").on(table.orgId)],
);

/** A feature flag; its per-environment configuration lives in flag_environments. */
export const flags = sqliteTable(
  "flags",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    /** Numeric id published to SDKs (PostHog's local evaluation documents carry an integer id). */
    number: integer("number").notNull().unique(),
    key: text("key").notNull(),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["boolean", "multivariate"] }).notNull(),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
    description: text("description"),
    ownerId: text("owner_id"),
    experimentId: text("experiment_id"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
    archivedAt: text("archived_at"),
  },
  (table) => [uniqueIndex("flags_project_key_idx").on(table.projectId, table.key)],
);

export const flagEnvironments = sqliteTable(
  "flag_environments",
  {
    flagId: text("flag_id").notNull().references(() => flags.id),
    environment: text("environment").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    payload: text("payload", { mode: "json" }).$type<unknown>(),
    rules: text("rules", { mode: "json" }).$type<unknown[]>().notNull(),
    salt: text("salt").notNull(),
    stickiness: text("stickiness").notNull(),
    variants: text("variants", { mode: "json" }).$type<unknown[]>().notNull(),
    version: integer("version").notNull(),
    updatedAt: text("updated_at").notNull(),
    updatedBy: text("updated_by"),
  },
  (table) => [uniqueIndex("flag_environments_flag_env_idx").on(table.flagId, table.environment)],
);

/** Versioned snapshots of one environment's flags, pushed to the project's region. */
export const flagPublications = sqliteTable(
  "flag_publications",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    environment: text("environment").notNull(),
    version: integer("version").notNull(),
    checksum: text("checksum").notNull(),
    snapshot: text("snapshot").notNull(),
    status: text("status", { enum: ["pending", "published", "failed"] }).notNull(),
    error: text("error"),
    createdAt: createdAt(),
    publishedAt: text("published_at"),
  },
  (table) => [uniqueIndex("flag_publications_env_version_idx").on(table.projectId, table.environment, table.version)],
);

/** Secrets that let server SDKs download an environment's flag definitions for local evaluation. */
export const flagSecretKeys = sqliteTable(
  "flag_secret_keys",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    environment: text("environment").notNull(),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    secretHash: text("secret_hash").notNull().unique(),
    registrySynced: integer("registry_synced", { mode: "boolean" }).notNull(),
    createdAt: createdAt(),
    createdBy: text("created_by"),
    revokedAt: text("revoked_at"),
  },
  (table) => [index("flag_secret_keys_project_idx").on(table.projectId)],
);

/** A reusable metric definition (experiments reference metrics by id). */
export const metrics = sqliteTable(
  "metrics",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    key: text("key").notNull(),
    kind: text("kind", { enum: ["proportion", "mean"] }).notNull(),
    name: text("name").notNull(),
    direction: text("direction", { enum: ["increase", "decrease"] }).notNull(),
    certified: integer("certified", { mode: "boolean" }).notNull(),
    monitor: integer("monitor", { mode: "boolean" }).notNull(),
    version: integer("version").notNull(),
    query: text("query", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    description: text("description"),
    ownerId: text("owner_id"),
    unit: text("unit"),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
    archivedAt: text("archived_at"),
    certifiedAt: text("certified_at"),
    certifiedBy: text("certified_by"),
  },
  (table) => [uniqueIndex("metrics_project_key_idx").on(table.projectId, table.key)],
);

export const experiments = sqliteTable(
  "experiments",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    flagId: text("flag_id").notNull().references(() => flags.id),
    key: text("key").notNull(),
    name: text("name").notNull(),
    environment: text("environment").notNull(),
    status: text("status", { enum: ["draft", "running", "stopped", "shipped", "archived"] }).notNull(),
    method: text("method", { enum: ["frequentist", "bayesian"] }).notNull(),
    alpha: real("alpha").notNull(),
    power: real("power").notNull(),
    mde: real("mde"),
    attributionWindowHours: integer("attribution_window_hours").notNull(),
    controlVariant: text("control_variant").notNull(),
    exposureEvent: text("exposure_event").notNull(),
    primaryMetricId: text("primary_metric_id"),
    secondaryMetricIds: text("secondary_metric_ids", { mode: "json" }).$type<string[]>().notNull(),
    guardrails: text("guardrails", { mode: "json" }).$type<{ metric_id: string; margin: number; margin_kind: string }[]>().notNull(),
    variants: text("variants", { mode: "json" }).$type<{ key: string; rollout_percentage: number }[]>().notNull(),
    cuped: text("cuped", { mode: "json" }).$type<{ enabled: boolean; pre_period_days: number } | null>(),
    winsorPct: real("winsor_pct"),
    hypothesis: text("hypothesis"),
    decision: text("decision", { mode: "json" }).$type<Record<string, unknown> | null>(),
    shippedVariant: text("shipped_variant"),
    startAt: text("start_at"),
    endAt: text("end_at"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("experiments_project_key_idx").on(table.projectId, table.key)],
);

/** The last results the region computed for an experiment (returned while younger than 5 minutes). */
export const experimentResults = sqliteTable("experiment_results", {
  experimentId: text("experiment_id").primaryKey().references(() => experiments.id),
  body: text("body", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  computedAt: text("computed_at").notNull(),
});

/**
 * Region-token revocations waiting for (or already taken by) each region. One row per region;
 * `synced` records that the region has it. Rows are deleted once `keep_until` has passed: by
 * then every token they cover has expired.
 */
export const regionTokenRevocations = sqliteTable(
  "region_token_revocations",
  {
    id: text("id").notNull(),
    region: text("region").notNull(),
    orgId: text("org_id"),
    userId: text("user_id"),
    projectId: text("project_id"),
    accessTokenId: text("access_token_id"),
    issuedUpTo: integer("issued_up_to").notNull(),
    keepUntil: integer("keep_until").notNull(),
    scopes: text("scopes", { mode: "json" }).$type<string[] | null>(),
    reason: text("reason", { enum: ["project_deleted", "member_removed", "role_changed", "access_token_revoked"] }).notNull(),
    synced: integer("synced", { mode: "boolean" }).notNull(),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex("region_token_revocations_id_region_idx").on(table.id, table.region),
    index("region_token_revocations_synced_idx").on(table.synced),
  ],
);

/** Saved insights (issue 36): a Query IR v1 document with how to draw it. Deleted ones are kept (deleted_at) so tiles can say why they cannot use them. */
export const insights = sqliteTable(
  "insights",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    name: text("name").notNull(),
    description: text("description"),
    kind: text("kind").notNull(),
    query: text("query", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    viz: text("viz", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
    createdVia: text("created_via").notNull(),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  (table) => [index("insights_project_idx").on(table.projectId, table.deletedAt)],
);

/** A user's favourite insights: `favorited` in InsightDto is the caller's. */
export const insightFavorites = sqliteTable(
  "insight_favorites",
  {
    insightId: text("insight_id").notNull().references(() => insights.id),
    userId: text("user_id").notNull().references(() => users.id),
    createdAt: createdAt(),
  },
  (table) => [uniqueIndex("insight_favorites_insight_user_idx").on(table.insightId, table.userId), index("insight_favorites_user_idx").on(table.userId)],
);

export const dashboards = sqliteTable(
  "dashboards",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    name: text("name").notNull(),
    description: text("description"),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
    isHome: integer("is_home", { mode: "boolean" }).notNull(),
    dateRange: text("date_range", { mode: "json" }).$type<Record<string, unknown>>(),
    filters: text("filters", { mode: "json" }).$type<Record<string, unknown>>(),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  (table) => [index("dashboards_project_idx").on(table.projectId, table.deletedAt)],
);

/** Tiles of a dashboard: an insight or a text block, at a position on the dashboard's grid. */
export const dashboardTiles = sqliteTable(
  "dashboard_tiles",
  {
    id: text("id").primaryKey(),
    dashboardId: text("dashboard_id").notNull().references(() => dashboards.id),
    kind: text("kind", { enum: ["insight", "text"] }).notNull(),
    insightId: text("insight_id").references(() => insights.id),
    body: text("body"),
    layout: text("layout", { mode: "json" }).$type<{ x: number; y: number; w: number; h: number }>().notNull(),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [index("dashboard_tiles_dashboard_idx").on(table.dashboardId), index("dashboard_tiles_insight_idx").on(table.insightId)],
);

export const annotations = sqliteTable(
  "annotations",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    content: text("content").notNull(),
    kind: text("kind").notNull(),
    occurredAt: text("occurred_at").notNull(),
    source: text("source", { enum: ["user", "system"] }).notNull(),
    ref: text("ref", { mode: "json" }).$type<Record<string, unknown>>(),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [index("annotations_project_time_idx").on(table.projectId, table.occurredAt)],
);

export const cohorts = sqliteTable(
  "cohorts",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    name: text("name").notNull(),
    description: text("description"),
    kind: text("kind", { enum: ["dynamic", "static"] }).notNull(),
    definition: text("definition", { mode: "json" }).$type<Record<string, unknown>>(),
    version: integer("version").notNull(),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
    deletedAt: text("deleted_at"),
  },
  (table) => [index("cohorts_project_idx").on(table.projectId, table.deletedAt)],
);

/** The last calculation of a cohort in one environment, as the region reported it. */
export const cohortCalculations = sqliteTable(
  "cohort_calculations",
  {
    cohortId: text("cohort_id").notNull().references(() => cohorts.id),
    environment: text("environment").notNull(),
    status: text("status", { enum: ["ok", "error", "running"] }).notNull(),
    calculatedAt: text("calculated_at").notNull(),
    cohortVersion: integer("cohort_version"),
    size: integer("size"),
    error: text("error"),
  },
  (table) => [uniqueIndex("cohort_calculations_cohort_env_idx").on(table.cohortId, table.environment)],
);

/** Tracking plan: one row per event name of a project. */
export const catalogEvents = sqliteTable(
  "catalog_events",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    name: text("name").notNull(),
    kind: text("kind").notNull(),
    status: text("status", { enum: ["planned", "implemented", "unplanned", "verified", "deprecated"] }).notNull(),
    piiLevel: text("pii_level").notNull(),
    platforms: text("platforms", { mode: "json" }).$type<string[]>().notNull(),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
    version: integer("version").notNull(),
    volume30d: integer("volume_30d"),
    description: text("description"),
    displayName: text("display_name"),
    firstSeenAt: text("first_seen_at"),
    lastSeenAt: text("last_seen_at"),
    ownerId: text("owner_id"),
    question: text("question"),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [uniqueIndex("catalog_events_project_name_idx").on(table.projectId, table.name)],
);

/** Properties of a catalog event (`event_id` set) or of the whole project (`event_id` null, scope `global`). */
export const catalogProperties = sqliteTable(
  "catalog_properties",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    eventId: text("event_id").references(() => catalogEvents.id),
    name: text("name").notNull(),
    type: text("type").notNull(),
    scope: text("scope").notNull(),
    pii: integer("pii", { mode: "boolean" }).notNull(),
    required: integer("required", { mode: "boolean" }).notNull(),
    description: text("description"),
    enumValues: text("enum_values", { mode: "json" }).$type<string[]>(),
    example: text("example"),
    position: integer("position").notNull(),
  },
  (table) => [index("catalog_properties_event_idx").on(table.eventId), index("catalog_properties_project_idx").on(table.projectId)],
);

/** Per project: the tracking plan's version (bumped on every change), whether violations become ingestion warnings, and whether the region has the plan. */
export const catalogSettings = sqliteTable("catalog_settings", {
  projectId: text("project_id").primaryKey().references(() => projects.id),
  catalogVersion: integer("catalog_version").notNull(),
  warnOnViolations: integer("warn_on_violations", { mode: "boolean" }).notNull(),
  syncedAt: text("synced_at"),
  /** The project's region holds the plan as it stands (false: a push failed; retried with the keys). */
  regionSynced: integer("region_synced", { mode: "boolean" }).notNull().default(false),
});

/** OAuth clients registered dynamically (RFC 7591). All are public clients (no secret); `id` is the client_id. */
export const oauthClients = sqliteTable("oauth_clients", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  redirectUris: text("redirect_uris", { mode: "json" }).$type<string[]>().notNull(),
  grantTypes: text("grant_types", { mode: "json" }).$type<string[]>().notNull(),
  /** What the client may ask for (space-separated in the protocol, a list here). */
  scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
  /** The optional RFC 7591 fields it registered with (client_uri, logo_uri, …), as sent. */
  metadata: text("metadata", { mode: "json" }).$type<Record<string, string>>().notNull(),
  createdAt: createdAt(),
});

/** An authorization request waiting for the person's decision on the consent page; deleted once decided. */
export const oauthAuthorizationRequests = sqliteTable("oauth_authorization_requests", {
  id: text("id").primaryKey(),
  clientId: text("client_id").notNull().references(() => oauthClients.id),
  redirectUri: text("redirect_uri").notNull(),
  state: text("state"),
  codeChallenge: text("code_challenge").notNull(),
  scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
  resources: text("resources", { mode: "json" }).$type<string[]>().notNull(),
  createdAt: createdAt(),
  expiresAt: text("expires_at").notNull(),
});

/**
 * What a person approved for a client: an organisation, scopes, optionally projects, and the
 * resources the tokens are for. It carries its single-use authorization code until that is
 * exchanged (code_used_at), and every token is cut from it, so revoking it revokes them all.
 */
export const oauthGrants = sqliteTable(
  "oauth_grants",
  {
    id: text("id").primaryKey(),
    clientId: text("client_id").notNull().references(() => oauthClients.id),
    userId: text("user_id").notNull().references(() => users.id),
    orgId: text("org_id").notNull().references(() => orgs.id),
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    projectIds: text("project_ids", { mode: "json" }).$type<string[] | null>(),
    resources: text("resources", { mode: "json" }).$type<string[]>().notNull(),
    redirectUri: text("redirect_uri").notNull(),
    codeHash: text("code_hash").notNull().unique(),
    codeChallenge: text("code_challenge").notNull(),
    codeExpiresAt: text("code_expires_at").notNull(),
    codeUsedAt: text("code_used_at"),
    createdAt: createdAt(),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
  },
  (table) => [index("oauth_grants_user_idx").on(table.userId)],
);

/** Access (`svc_oat_`) and refresh (`svc_ort_`) tokens, SHA-256 stored. A refresh token is used once (rotation). */
export const oauthTokens = sqliteTable(
  "oauth_tokens",
  {
    id: text("id").primaryKey(),
    grantId: text("grant_id").notNull().references(() => oauthGrants.id),
    kind: text("kind", { enum: ["access", "refresh"] }).notNull(),
    secretHash: text("secret_hash").notNull().unique(),
    createdAt: createdAt(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
    revokedAt: text("revoked_at"),
  },
  (table) => [index("oauth_tokens_grant_idx").on(table.grantId)],
);

/**
 * A personal-data erasure (docs/erasure.md). The identifiers it names live in
 * erasure_subjects only while it is pending or running; once it ends, the region's report
 * (hashes and counts) and the signed certificate are all that is kept.
 */
export const erasureRequests = sqliteTable(
  "erasure_requests",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    environment: text("environment").notNull(),
    status: text("status", { enum: ["pending", "running", "completed", "failed"] }).notNull(),
    subjectCount: integer("subject_count").notNull(),
    progressStage: text("progress_stage"),
    progressDone: integer("progress_done"),
    progressTotal: integer("progress_total"),
    /** failed: why; running: the last transient error (the region is tried again). */
    error: text("error"),
    report: text("report", { mode: "json" }).$type<Record<string, unknown>>(),
    certificate: text("certificate"),
    createdAt: createdAt(),
    startedAt: text("started_at"),
    completedAt: text("completed_at"),
  },
  (table) => [index("erasure_requests_project_idx").on(table.projectId, table.createdAt), index("erasure_requests_status_idx").on(table.status)],
);

/** The identifiers of an unfinished erasure, in their own row so progress updates never copy them. */
export const erasureSubjects = sqliteTable("erasure_subjects", {
  requestId: text("request_id").primaryKey().references(() => erasureRequests.id),
  subjects: text("subjects", { mode: "json" }).$type<{ person_ids: string[]; distinct_ids: string[] }>().notNull(),
});

/**
 * A project's revenue integration: which provider's webhooks it accepts, at which path token
 * (part of `webhook_url`, so kept as is; rotating it replaces it), and the secret the
 * provider signs with (never returned; the region needs it to verify signatures).
 */
export const integrations = sqliteTable(
  "integrations",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    provider: text("provider", { enum: ["stripe", "revenuecat", "app_store", "play_store"] }).notNull(),
    name: text("name"),
    status: text("status", { enum: ["active", "disabled"] }).notNull(),
    token: text("token").notNull().unique(),
    secret: text("secret"),
    secretLast4: text("secret_last4"),
    config: text("config", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** The project's region holds the integration as it stands (false: a push failed; retried). */
    regionSynced: integer("region_synced", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
  },
  (table) => [index("integrations_project_idx").on(table.projectId, table.createdAt)],
);

/**
 * An organisation's plan and spend cap, and its customer and subscription at the payment
 * provider when one is configured. No row: the deployment's default plan, no cap.
 */
export const orgBilling = sqliteTable("org_billing", {
  orgId: text("org_id").primaryKey().references(() => orgs.id),
  plan: text("plan", { enum: ["self_hosted", "starter", "growth", "scale"] }).notNull(),
  spendCapMinor: integer("spend_cap_minor"),
  customerId: text("customer_id"),
  subscriptionId: text("subscription_id"),
  subscriptionStatus: text("subscription_status"),
  currentPeriodStart: text("current_period_start"),
  currentPeriodEnd: text("current_period_end"),
  updatedAt: text("updated_at").notNull(),
});

/**
 * Where a project's findings are sent (docs/findings.md). `secret` is the destination's URL
 * (Slack: the incoming-webhook URL; webhook: the endpoint URL) and `signing_secret` the webhook
 * kind's HMAC key: both stored as the integrations' secret is, never returned nor audited; the
 * region gets them (it delivers). `secret_hint` (origin and last 4 characters of the URL) is
 * what a person sees.
 */
export const findingsDestinations = sqliteTable(
  "findings_destinations",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    kind: text("kind", { enum: ["slack", "webhook"] }).notNull(),
    name: text("name").notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    minSeverity: text("min_severity", { enum: ["info", "warning", "critical"] }).notNull(),
    config: text("config", { mode: "json" }).$type<{ to: string[]; channel: string | null }>().notNull(),
    secret: text("secret"),
    signingSecret: text("signing_secret"),
    secretHint: text("secret_hint"),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
    createdBy: text("created_by"),
  },
  (table) => [index("findings_destinations_project_idx").on(table.projectId, table.createdAt)],
);

/** What a project's region evaluates, and where what it raises is sent (docs/findings.md). */
export const findingsRules = sqliteTable(
  "findings_rules",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull().references(() => projects.id),
    name: text("name").notNull(),
    cadence: text("cadence", { enum: ["hourly", "daily"] }).notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull(),
    minSeverity: text("min_severity", { enum: ["info", "warning", "critical"] }).notNull(),
    destinationIds: text("destination_ids", { mode: "json" }).$type<string[]>().notNull(),
    target: text("target", { mode: "json" }).$type<RuleTarget>().notNull(),
    thresholds: text("thresholds", { mode: "json" }).$type<Thresholds>().notNull(),
    dailyCap: integer("daily_cap"),
    createdAt: createdAt(),
    updatedAt: text("updated_at").notNull(),
    createdBy: text("created_by"),
  },
  (table) => [index("findings_rules_project_idx").on(table.projectId, table.createdAt)],
);
