// The gateway's settings (environment variables, documented in the README and docs/gateway.md).
import { isPostgresUrl } from "../sql-store/open.ts";
import { defaultSendsPerMinute, defaultWarmupDailyCaps } from "./number-limits.ts";

export type GatewayNetworkKind = "baileys" | "simulated";

export interface GatewaySettings {
  /** postgres://… to share the store between replicas; null: SQLite in DATA_DIR. */
  databaseUrl: string | null;
  /** The operator's key; null: made on first start and kept in DATA_DIR (gateway-root-key). */
  rootKey: string | null;
  /** Reported by GET /v1/about; null: read from the clone's .git. */
  buildCommit: string | null;
  /** Which messaging network sessions open on (GATEWAY_NETWORK). */
  network: GatewayNetworkKind;
  /** The simulated network's URL; null: the gateway starts one of its own on loopback. */
  simulatedNetworkUrl: string | null;
  /** SHARDING_ENABLED: replicas share the numbers by lease and forward requests to the owner. */
  sharding: boolean;
  /** REPLICA_URL: where the other replicas reach this one (required with sharding). */
  replicaUrl: string | null;
  leaseTtlMs: number;
  supervisorIntervalMs: number;
  /** How long a webhook receiver has to answer one delivery. */
  webhookTimeoutMs: number;
  sendsPerMinute: number;
  warmupDailyCaps: readonly number[];
  /** ALERT_WEBHOOK_URL: alert transitions are posted here (Slack-style incoming webhook body). */
  alertWebhookUrl: string | null;
}

export class GatewaySettingsError extends Error {}

export const defaultLeaseTtlMs = 30_000;
export const defaultSupervisorIntervalMs = 5_000;
export const defaultWebhookTimeoutMs = 10_000;
/** A lease renewed less often than this fraction of its life could lapse between two passes. */
const supervisorShareOfLeaseMax = 1 / 3;

function positiveInteger(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new GatewaySettingsError(`${name} must be a positive integer, got "${raw.slice(0, 40)}"`);
  return value;
}

function httpUrl(env: Record<string, string | undefined>, name: string): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  if (!/^https?:\/\/[^\s]+$/.test(raw)) throw new GatewaySettingsError(`${name} must be an http:// or https:// URL`);
  return raw.replace(/\/+$/, "");
}

export function parseGatewaySettings(env: Record<string, string | undefined>): GatewaySettings {
  const databaseUrl = env.GATEWAY_DATABASE_URL?.trim() || null;
  if (databaseUrl && !isPostgresUrl(databaseUrl)) {
    throw new GatewaySettingsError(`GATEWAY_DATABASE_URL must be a postgres:// URL, got "${databaseUrl.replace(/\/\/[^@]*@/, "//…@")}"`);
  }
  const rootKey = env.GATEWAY_ROOT_KEY?.trim() || null;
  if (rootKey !== null && rootKey.length < 24) throw new GatewaySettingsError("GATEWAY_ROOT_KEY must be at least 24 characters");
  const networkRaw = env.GATEWAY_NETWORK?.trim() || "baileys";
  if (networkRaw !== "baileys" && networkRaw !== "simulated") throw new GatewaySettingsError(`GATEWAY_NETWORK must be baileys or simulated, got "${networkRaw.slice(0, 40)}"`);
  const network: GatewayNetworkKind = networkRaw;
  const shardingRaw = env.SHARDING_ENABLED?.trim() || "false";
  if (shardingRaw !== "true" && shardingRaw !== "false") throw new GatewaySettingsError(`SHARDING_ENABLED must be true or false, got "${shardingRaw.slice(0, 40)}"`);
  const sharding = shardingRaw === "true";
  const replicaUrl = httpUrl(env, "REPLICA_URL");
  if (sharding && replicaUrl === null) throw new GatewaySettingsError("SHARDING_ENABLED=true needs REPLICA_URL (where the other replicas reach this one)");
  if (sharding && databaseUrl === null) throw new GatewaySettingsError("SHARDING_ENABLED=true needs GATEWAY_DATABASE_URL (replicas share their leases in PostgreSQL)");
  const leaseTtlMs = positiveInteger(env, "GATEWAY_LEASE_TTL_MS", defaultLeaseTtlMs);
  const supervisorIntervalMs = positiveInteger(env, "GATEWAY_SUPERVISOR_INTERVAL_MS", Math.min(defaultSupervisorIntervalMs, Math.floor(leaseTtlMs * supervisorShareOfLeaseMax)));
  if (supervisorIntervalMs > leaseTtlMs * supervisorShareOfLeaseMax) {
    throw new GatewaySettingsError("GATEWAY_SUPERVISOR_INTERVAL_MS must be at most a third of GATEWAY_LEASE_TTL_MS (leases are renewed by the supervisor)");
  }
  const warmupRaw = env.GATEWAY_WARMUP_DAILY_CAPS?.trim();
  const warmupDailyCaps = warmupRaw === undefined || warmupRaw === "" ? defaultWarmupDailyCaps : warmupRaw === "off" ? [] : warmupRaw.split(",").map((part) => Number(part.trim()));
  if (warmupDailyCaps.some((cap) => !Number.isInteger(cap) || cap <= 0)) throw new GatewaySettingsError('GATEWAY_WARMUP_DAILY_CAPS must be "off" or positive integers separated by commas');
  return {
    databaseUrl,
    rootKey,
    buildCommit: env.BUILD_COMMIT?.trim() || null,
    network,
    simulatedNetworkUrl: httpUrl(env, "GATEWAY_SIMULATED_NETWORK_URL"),
    sharding,
    replicaUrl,
    leaseTtlMs,
    supervisorIntervalMs,
    webhookTimeoutMs: positiveInteger(env, "GATEWAY_WEBHOOK_TIMEOUT_MS", defaultWebhookTimeoutMs),
    sendsPerMinute: positiveInteger(env, "GATEWAY_SENDS_PER_MINUTE", defaultSendsPerMinute),
    warmupDailyCaps,
    alertWebhookUrl: httpUrl(env, "ALERT_WEBHOOK_URL"),
  };
}
