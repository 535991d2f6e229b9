// The root key's work on projects: create (the webhook secret shown once), mint and revoke
// keys (a key shown once), rotate the webhook secret, point the webhook, suspend and enable.
// Every change is audited on the project's trail, so a project sees what operators did to it.
import { notFound, validation } from "../http/errors.ts";
import { keyHash } from "../service-keys.ts";
import { newWebhookSecret } from "../http/standard-webhooks.ts";
import { newProjectKey } from "./secrets.ts";
import type { AuditStore } from "./store/audit.ts";
import type { GatewayKey, GatewayProject, ProjectStore } from "./store/projects.ts";

export const projectNameLengthMax = 200;
export const keyNameLengthMax = 200;
export const webhookUrlLengthMax = 2_048;

export function checkWebhookUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw validation(`webhookUrl: "${url.slice(0, 100)}" is not a URL`);
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw validation("webhookUrl: must be an http:// or https:// URL");
  return parsed.href;
}

export class ProjectsService {
  constructor(
    private readonly projects: ProjectStore,
    private readonly audit: AuditStore,
    private readonly now: () => number = Date.now,
  ) {}

  private async existing(id: string): Promise<GatewayProject> {
    const project = await this.projects.get(id);
    if (!project) throw notFound("project");
    return project;
  }

  private log(projectId: string, action: string, target: string | null, detail: Record<string, unknown> | null = null) {
    return this.audit.record({ projectId, actor: "root", action, target, detail, at: this.now() });
  }

  async create(name: string, webhookUrl: string | null): Promise<{ project: GatewayProject; webhookSecret: string }> {
    const webhookSecret = newWebhookSecret();
    const project = await this.projects.create({ id: Bun.randomUUIDv7(), name, webhookUrl: webhookUrl && checkWebhookUrl(webhookUrl), webhookSecret, now: this.now() });
    await this.log(project.id, "project.created", project.id, { name, webhookUrl: project.webhookUrl });
    return { project, webhookSecret };
  }

  get = (id: string) => this.existing(id);
  list = (limit: number, after: string | null) => this.projects.list(limit, after);

  async mintKey(projectId: string, name: string): Promise<{ key: GatewayKey; secret: string }> {
    await this.existing(projectId);
    const secret = newProjectKey();
    const key = await this.projects.addKey({ id: Bun.randomUUIDv7(), projectId, name, secretHash: keyHash(secret), last4: secret.slice(-4), now: this.now() });
    await this.log(projectId, "key.minted", key.id, { name });
    return { key, secret };
  }

  async keys(projectId: string): Promise<GatewayKey[]> {
    await this.existing(projectId);
    return this.projects.keys(projectId);
  }

  async revokeKey(projectId: string, keyId: string): Promise<GatewayKey> {
    await this.existing(projectId);
    const key = await this.projects.revokeKey(projectId, keyId, this.now());
    if (!key) throw notFound("key");
    await this.log(projectId, "key.revoked", keyId);
    return key;
  }

  /** A new secret at once (the old one signs nothing more); the receiver must switch to it. */
  async rotateWebhookSecret(projectId: string): Promise<{ project: GatewayProject; webhookSecret: string }> {
    await this.existing(projectId);
    const webhookSecret = newWebhookSecret();
    const project = (await this.projects.update(projectId, { webhookSecret }, this.now()))!;
    await this.log(projectId, "webhook.secret_rotated", projectId);
    return { project, webhookSecret };
  }

  async setWebhookUrl(projectId: string, url: string | null): Promise<GatewayProject> {
    await this.existing(projectId);
    const webhookUrl = url && checkWebhookUrl(url);
    const project = (await this.projects.update(projectId, { webhookUrl }, this.now()))!;
    await this.log(projectId, "webhook.url_set", projectId, { webhookUrl });
    return project;
  }

  async setSuspended(projectId: string, suspended: boolean): Promise<GatewayProject> {
    const current = await this.existing(projectId);
    if ((current.suspendedAt !== null) === suspended) return current;
    const project = (await this.projects.update(projectId, { suspendedAt: suspended ? this.now() : null }, this.now()))!;
    await this.log(projectId, suspended ? "project.disabled" : "project.enabled", projectId);
    return project;
  }
}
