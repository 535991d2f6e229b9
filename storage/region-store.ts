// The region's own SQLite file (region.sqlite): the key registry (the capture side's copy of
// every public key of projects in this region, so ingest never asks the control plane whether
// a key is valid), ingest policies, the person store (person-store.ts), published flags
// (flag-store.ts), region-token revocations (token-revocations.ts), cohort memberships
// (cohort-store.ts), the projects' tracking plans (catalog-plan-store.ts), the replay index
// (replay/replay-index.ts), the usage counters billing meters from (usage-counters.ts), and
// findings: their configuration (findings-config-store.ts), the raised findings (findings-store.ts)
// and their delivery outbox (findings-outbox.ts),
// and Ask's conversations (ask-conversations.ts).
import { FindingsConfigStore } from "./findings-config-store.ts";
import { FindingsStore } from "./findings-store.ts";
import { FindingsOutboxStore } from "./findings-outbox.ts";
import { AskConversationStore } from "./ask-conversations.ts";
import { Database } from "bun:sqlite";
import { personSchema, personSchemaV4, personSchemaV7 } from "./person-schema.ts";
import { PersonStore } from "./person-store.ts";
import { PersonDirectory } from "./person-directory.ts";
import { FlagStore, flagSchema } from "./flag-store.ts";
import { TokenRevocationStore } from "./token-revocations.ts";
import { IngestionWarningStore } from "./ingestion-warning-store.ts";
import { ProjectSecrets } from "./project-secrets.ts";
import { CohortStore } from "./cohort-store.ts";
import { CatalogPlanStore } from "./catalog-plan-store.ts";
import { IntegrationStore } from "./integration-store.ts";
import { WebhookEventLog } from "./webhook-event-log.ts";
import { ReplayIndex } from "./replay/replay-index.ts";
import { ErasureJournal } from "./erasure-journal.ts";
import { PersonErasure } from "./person-erasure.ts";
import { UsageCounterStore } from "./usage-counters.ts";

export interface RegistryKey {
  key: string;
  keyId: string;
  projectId: string;
  dataId: number;
  environment: string;
  allowedOrigins: string[];
  allowedBundleIds: string[];
  revokedAt: string | null;
  /** Events older than this many days are rejected at ingest. */
  retentionDays: number;
  /** The project's IANA time zone: queries bucket days and weeks in it. */
  timeZone: string;
}

/** Sampling past a spend cap: keep this share of events (1 = keep all). */
export interface IngestPolicy {
  projectId: string;
  keepRatio: number;
  updatedAt: string;
}

const schemaVersion = 8;

export class RegionStore {
  private readonly db: Database;
  /** Persons, distinct ids, merges and groups (same file): ingest's side, and the read side. */
  readonly persons: PersonStore;
  readonly directory: PersonDirectory;
  /** Published flag snapshots and flag secret keys (same file). */
  readonly flags: FlagStore;
  /** Region tokens revoked before they expire (same file). */
  readonly tokenRevocations: TokenRevocationStore;
  /** Ingestion warnings (same file; the store creates its own table). */
  readonly ingestionWarnings: IngestionWarningStore;
  /** Per-project secrets: the drop-in pseudonym key (same file; the store creates its own table). */
  readonly projectSecrets: ProjectSecrets;
  /** Cohort memberships per environment (same file; the store creates its own table). */
  readonly cohorts: CohortStore;
  /** Tracking plans the control plane pushed (same file; the store creates its own table). */
  readonly catalogPlans: CatalogPlanStore;
  /** Revenue integrations the control plane pushed, for the webhook route (same file; the store creates its own table). */
  readonly integrations: IntegrationStore;
  /** Which events each integration's webhooks stored, so a late redelivery stores nothing twice. */
  readonly webhookEvents: WebhookEventLog;
  /** Session recordings' index, policies and log checkpoint (same file; the store creates its own tables). */
  readonly replays: ReplayIndex;
  /** Erasure jobs: their subjects while they run, their reports once done (same file; the store creates its own table). */
  readonly erasures: ErasureJournal;
  /** Erases persons and what refers to them from this file. */
  readonly personErasure: PersonErasure;
  /** Events and replay recordings stored, per project and hour, for billing (same file; the store creates its own table). */
  readonly usage: UsageCounterStore;
  /** Findings destinations, rules and metrics the control plane pushed (same file; the store creates its own table). */
  readonly findingsConfig: FindingsConfigStore;
  /** Raised findings and the periods each rule judged (same file; the store creates its own tables). */
  readonly findings: FindingsStore;
  /** Raised findings' deliveries to their destinations, with every attempt (same file; the store creates its own tables). */
  readonly findingsOutbox: FindingsOutboxStore;
  /** Ask's conversations per project, environment and user (same file; the store creates its own tables). */
  readonly askConversations: AskConversationStore;

  /** SQLite's write-ahead journal of this file: durable once synced, whatever the checkpoints did. */
  readonly journalPath: string;
  private readonly totalChanges;
  private readonly findKeyStatement;
  /** Keys found in the registry (never the unknown ones, so made-up keys cannot grow it). */
  private readonly knownKeys = new Map<string, RegistryKey>();

  constructor(path: string) {
    this.journalPath = `${path}-wal`;
    this.db = new Database(path, { create: true, strict: true });
    this.db.exec("PRAGMA journal_mode = WAL");
    // Commits are not synced one by one (that would block ingest on an fsync per request):
    // the event WAL syncs this file's journal in each group commit (see journalPath).
    this.db.exec("PRAGMA synchronous = NORMAL");
    this.db.exec("PRAGMA busy_timeout = 5000");
    // Deleted rows are overwritten with zeros, not left in free pages: an erased person's data
    // must not survive in the file (checkpointJournal then empties the journal too).
    this.db.exec("PRAGMA secure_delete = ON");
    this.migrate();
    this.totalChanges = this.db.query("SELECT total_changes() AS changes");
    this.findKeyStatement = this.db.query("SELECT * FROM key_registry WHERE key = ?");
    this.directory = new PersonDirectory(this.db);
    this.persons = new PersonStore(this.db, this.directory);
    this.flags = new FlagStore(this.db);
    this.tokenRevocations = new TokenRevocationStore(this.db);
    this.ingestionWarnings = new IngestionWarningStore(this.db);
    this.projectSecrets = new ProjectSecrets(this.db);
    this.cohorts = new CohortStore(this.db);
    this.catalogPlans = new CatalogPlanStore(this.db);
    this.integrations = new IntegrationStore(this.db);
    this.webhookEvents = new WebhookEventLog(this.db);
    this.replays = new ReplayIndex(this.db);
    this.erasures = new ErasureJournal(this.db);
    this.personErasure = new PersonErasure(this.db, this.directory, this.persons, this.cohorts);
    this.usage = new UsageCounterStore(this.db);
    this.findingsConfig = new FindingsConfigStore(this.db);
    this.findings = new FindingsStore(this.db);
    this.findingsOutbox = new FindingsOutboxStore(this.db);
    this.askConversations = new AskConversationStore(this.db);
  }

  /**
   * Copies the journal into the file and truncates it to nothing, so the old versions of pages
   * it held (rows since deleted) are gone; throws if a reader kept it from completing.
   */
  checkpointJournal(): void {
    const result = this.db.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number };
    if (result.busy !== 0) throw new Error("region.sqlite's journal could not be checkpointed (a reader held it)");
  }

  /**
   * Rebuilds the file (VACUUM) and empties the journal (checkpointJournal): secure_delete zeroes
   * what is deleted from now on, but copies left in free pages before (rows deleted or updated
   * when the file ran without it: a person's earlier property values, merged ids) go only when
   * the file is written anew. The replay index is in this file too.
   */
  compactFile(): void {
    this.db.exec("VACUUM");
    this.checkpointJournal();
  }

  private migrate(): void {
    const { user_version: version } = this.db.query("PRAGMA user_version").get() as { user_version: number };
    if (version >= schemaVersion) return;
    this.db.transaction(() => {
      if (version < 1) this.db.exec(`CREATE TABLE key_registry (
        key TEXT PRIMARY KEY,
        key_id TEXT NOT NULL UNIQUE,
        project_id TEXT NOT NULL,
        data_id INTEGER NOT NULL,
        environment TEXT NOT NULL,
        allowed_origins TEXT NOT NULL,
        allowed_bundle_ids TEXT NOT NULL,
        revoked_at TEXT,
        synced_at TEXT NOT NULL
      )`);
      if (version < 2) {
        this.db.exec("ALTER TABLE key_registry ADD COLUMN retention_days INTEGER NOT NULL DEFAULT 365");
        this.db.exec(`CREATE TABLE ingest_policy (
          project_id TEXT PRIMARY KEY,
          keep_ratio REAL NOT NULL CHECK (keep_ratio > 0 AND keep_ratio <= 1),
          updated_at TEXT NOT NULL
        )`);
      }
      if (version < 3) this.db.exec(personSchema);
      if (version < 4) this.db.exec(personSchemaV4);
      if (version < 5) this.db.exec("ALTER TABLE key_registry ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC'");
      if (version < 6) this.db.exec(flagSchema);
      if (version < 7) this.db.exec(personSchemaV7);
      // Every region query looks its project's time zone up by project.
      if (version < 8) this.db.exec("CREATE INDEX key_registry_by_project ON key_registry (project_id)");
      this.db.exec(`PRAGMA user_version = ${schemaVersion}`);
    })();
  }

  /** Inserts or replaces the registry's copy of each key (idempotent). */
  upsertKeys(keys: RegistryKey[]): void {
    for (const entry of keys) this.knownKeys.delete(entry.key);
    const statement = this.db.query(`INSERT INTO key_registry
      (key, key_id, project_id, data_id, environment, allowed_origins, allowed_bundle_ids, revoked_at, retention_days, time_zone, synced_at)
      VALUES ($key, $keyId, $projectId, $dataId, $environment, $origins, $bundles, $revokedAt, $retentionDays, $timeZone, $syncedAt)
      ON CONFLICT(key) DO UPDATE SET allowed_origins = excluded.allowed_origins,
        allowed_bundle_ids = excluded.allowed_bundle_ids, revoked_at = excluded.revoked_at,
        retention_days = excluded.retention_days, time_zone = excluded.time_zone, synced_at = excluded.synced_at`);
    const syncedAt = new Date().toISOString();
    this.db.transaction(() => {
      for (const entry of keys) {
        statement.run({
          key: entry.key,
          keyId: entry.keyId,
          projectId: entry.projectId,
          dataId: entry.dataId,
          environment: entry.environment,
          origins: JSON.stringify(entry.allowedOrigins),
          bundles: JSON.stringify(entry.allowedBundleIds),
          revokedAt: entry.revokedAt,
          retentionDays: entry.retentionDays,
          timeZone: entry.timeZone,
          syncedAt,
        });
      }
    })();
  }

  /** A registered key (every ingest and flag request asks, so found keys stay in memory until re-synced). */
  findKey(key: string): RegistryKey | null {
    const known = this.knownKeys.get(key);
    if (known) return known;
    const row = this.findKeyStatement.get(key) as Record<string, unknown> | null;
    if (!row) return null;
    const found: RegistryKey = {
      key: row.key as string,
      keyId: row.key_id as string,
      projectId: row.project_id as string,
      dataId: row.data_id as number,
      environment: row.environment as string,
      allowedOrigins: JSON.parse(row.allowed_origins as string),
      allowedBundleIds: JSON.parse(row.allowed_bundle_ids as string),
      revokedAt: (row.revoked_at as string | null) ?? null,
      retentionDays: row.retention_days as number,
      timeZone: row.time_zone as string,
    };
    this.knownKeys.set(key, found);
    return found;
  }

  /** The environments a project has keys in (any state), sorted; none before any key arrived. */
  projectEnvironments(projectId: string): string[] {
    const rows = this.db.query("SELECT DISTINCT environment FROM key_registry WHERE project_id = ? ORDER BY environment").all(projectId) as { environment: string }[];
    return rows.map((row) => row.environment);
  }

  /** A project's time zone as its keys carry it (UTC before any key arrived). */
  projectTimeZone(projectId: string): string {
    const row = this.db.query("SELECT time_zone FROM key_registry WHERE project_id = ? LIMIT 1").get(projectId) as { time_zone: string } | null;
    return row?.time_zone ?? "UTC";
  }

  /** A project's retention in days as its keys carry it (null before any key arrived). */
  projectRetentionDays(projectId: string): number | null {
    const row = this.db.query("SELECT retention_days FROM key_registry WHERE project_id = ? LIMIT 1").get(projectId) as { retention_days: number } | null;
    return row?.retention_days ?? null;
  }

  /** A project's data id as its keys carry it, or null when no key of the project reached this region. */
  projectDataId(projectId: string): number | null {
    const row = this.db.query("SELECT data_id FROM key_registry WHERE project_id = ? LIMIT 1").get(projectId) as { data_id: number } | null;
    return row?.data_id ?? null;
  }

  setIngestPolicy(projectId: string, keepRatio: number): IngestPolicy {
    const policy = { projectId, keepRatio, updatedAt: new Date().toISOString() };
    this.db
      .query(`INSERT INTO ingest_policy (project_id, keep_ratio, updated_at) VALUES (?, ?, ?)
        ON CONFLICT(project_id) DO UPDATE SET keep_ratio = excluded.keep_ratio, updated_at = excluded.updated_at`)
      .run(projectId, keepRatio, policy.updatedAt);
    return policy;
  }

  ingestPolicies(): IngestPolicy[] {
    return (this.db.query("SELECT project_id, keep_ratio, updated_at FROM ingest_policy").all() as Record<string, unknown>[]).map((row) => ({
      projectId: row.project_id as string,
      keepRatio: row.keep_ratio as number,
      updatedAt: row.updated_at as string,
    }));
  }

  /** Rows changed through this connection so far: when it moves, the journal has unsynced writes. */
  changes(): number {
    return (this.totalChanges.get() as { changes: number }).changes;
  }

  /** A cheap read that proves the file is open and answering (for /health). */
  ping(): void {
    this.db.query("SELECT 1").get();
  }

  close(): void {
    this.db.close();
  }
}
