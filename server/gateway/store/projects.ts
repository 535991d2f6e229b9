// Projects and their keys in the gateway's store. A project is made by the root key with a
// webhook secret (shown once); keys are minted per project (shown once; only their hash is
// kept); a suspended project's keys stop working until it is enabled again.
import type { SQL } from "bun";
import { time } from "../../sql-store/values.ts";

export interface GatewayProject {
  id: string;
  name: string;
  webhookUrl: string | null;
  suspendedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface GatewayKey {
  id: string;
  projectId: string;
  name: string;
  last4: string;
  createdAt: number;
  revokedAt: number | null;
}

interface ProjectRow {
  id: string;
  name: string;
  webhook_url: string | null;
  suspended_at: number | string | null;
  created_at: number | string;
  updated_at: number | string;
}

interface KeyRow {
  id: string;
  project_id: string;
  name: string;
  secret_last4: string;
  created_at: number | string;
  revoked_at: number | string | null;
}


const project = (row: ProjectRow): GatewayProject => ({
  id: row.id,
  name: row.name,
  webhookUrl: row.webhook_url,
  suspendedAt: time(row.suspended_at),
  createdAt: time(row.created_at)!,
  updatedAt: time(row.updated_at)!,
});

const key = (row: KeyRow): GatewayKey => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  last4: row.secret_last4,
  createdAt: time(row.created_at)!,
  revokedAt: time(row.revoked_at),
});

export class ProjectStore {
  constructor(private readonly sql: SQL) {}

  async create(input: { id: string; name: string; webhookUrl: string | null; webhookSecret: string; now: number }): Promise<GatewayProject> {
    const [row] = await this.sql`
      INSERT INTO gateway_projects (id, name, webhook_url, webhook_secret, suspended_at, created_at, updated_at)
      VALUES (${input.id}, ${input.name}, ${input.webhookUrl}, ${input.webhookSecret}, ${null}, ${input.now}, ${input.now})
      RETURNING id, name, webhook_url, suspended_at, created_at, updated_at`;
    return project(row as ProjectRow);
  }

  async get(id: string): Promise<GatewayProject | null> {
    const [row] = await this.sql`SELECT id, name, webhook_url, suspended_at, created_at, updated_at FROM gateway_projects WHERE id = ${id}`;
    return row ? project(row as ProjectRow) : null;
  }

  /** Newest first, `limit` at a time, after the project `after` (its id) when given. */
  async list(limit: number, after: string | null): Promise<GatewayProject[]> {
    const rows = after
      ? await this.sql`SELECT id, name, webhook_url, suspended_at, created_at, updated_at FROM gateway_projects WHERE id < ${after} ORDER BY id DESC LIMIT ${limit}`
      : await this.sql`SELECT id, name, webhook_url, suspended_at, created_at, updated_at FROM gateway_projects ORDER BY id DESC LIMIT ${limit}`;
    return (rows as ProjectRow[]).map(project);
  }

  /** Which of these projects are suspended (one query, for a dispatch pass). */
  async suspendedAmong(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.sql`SELECT id FROM gateway_projects WHERE id IN ${this.sql(ids as string[])} AND suspended_at IS NOT NULL`;
    return new Set((rows as { id: string }[]).map((row) => row.id));
  }

  /** Where the project's deliveries go and the secret that signs them, in one read. */
  async webhookTarget(id: string): Promise<{ url: string | null; secret: string | null }> {
    const [row] = await this.sql`SELECT webhook_url, webhook_secret FROM gateway_projects WHERE id = ${id}`;
    return row ? { url: (row as { webhook_url: string | null }).webhook_url, secret: (row as { webhook_secret: string }).webhook_secret } : { url: null, secret: null };
  }

  async update(id: string, change: { name?: string; webhookUrl?: string | null; webhookSecret?: string; suspendedAt?: number | null }, now: number): Promise<GatewayProject | null> {
    const values: Record<string, string | number | null> = { updated_at: now };
    if (change.name !== undefined) values.name = change.name;
    if (change.webhookUrl !== undefined) values.webhook_url = change.webhookUrl;
    if (change.webhookSecret !== undefined) values.webhook_secret = change.webhookSecret;
    if (change.suspendedAt !== undefined) values.suspended_at = change.suspendedAt;
    const [row] = await this.sql`
      UPDATE gateway_projects SET ${this.sql(values)} WHERE id = ${id}
      RETURNING id, name, webhook_url, suspended_at, created_at, updated_at`;
    return row ? project(row as ProjectRow) : null;
  }

  async addKey(input: { id: string; projectId: string; name: string; secretHash: string; last4: string; now: number }): Promise<GatewayKey> {
    const [row] = await this.sql`
      INSERT INTO gateway_keys (id, project_id, name, secret_hash, secret_last4, created_at, revoked_at)
      VALUES (${input.id}, ${input.projectId}, ${input.name}, ${input.secretHash}, ${input.last4}, ${input.now}, ${null})
      RETURNING id, project_id, name, secret_last4, created_at, revoked_at`;
    return key(row as KeyRow);
  }

  async keys(projectId: string): Promise<GatewayKey[]> {
    const rows = await this.sql`SELECT id, project_id, name, secret_last4, created_at, revoked_at FROM gateway_keys WHERE project_id = ${projectId} ORDER BY created_at, id`;
    return (rows as KeyRow[]).map(key);
  }

  async revokeKey(projectId: string, keyId: string, now: number): Promise<GatewayKey | null> {
    const [row] = await this.sql`
      UPDATE gateway_keys SET revoked_at = COALESCE(revoked_at, ${now})
      WHERE id = ${keyId} AND project_id = ${projectId}
      RETURNING id, project_id, name, secret_last4, created_at, revoked_at`;
    return row ? key(row as KeyRow) : null;
  }

  /** The live key with this hash and its project, if the key is not revoked and the project not suspended. */
  async activeKey(secretHash: string): Promise<{ keyId: string; projectId: string } | null> {
    const [row] = await this.sql`
      SELECT k.id AS key_id, k.project_id AS project_id FROM gateway_keys k JOIN gateway_projects p ON p.id = k.project_id
      WHERE k.secret_hash = ${secretHash} AND k.revoked_at IS NULL AND p.suspended_at IS NULL`;
    return row ? { keyId: (row as { key_id: string }).key_id, projectId: (row as { project_id: string }).project_id } : null;
  }
}
