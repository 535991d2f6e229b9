// The gateway's settings: defaults, and a clear error for every value it cannot run with.
import { expect, test } from "bun:test";
import { defaultWarmupDailyCaps } from "../../server/gateway/number-limits.ts";
import { GatewaySettingsError, parseGatewaySettings } from "../../server/gateway/settings.ts";
import { ConfigError, loadConfig } from "../../server/config.ts";

const postgres = "postgres://gw@db/gw";

test("defaults: SQLite, Baileys, one replica, 30 s leases renewed every 5 s, 20 sends a minute with the warm-up ramp", () => {
  expect(parseGatewaySettings({})).toEqual({
    databaseUrl: null,
    rootKey: null,
    buildCommit: null,
    network: "baileys",
    simulatedNetworkUrl: null,
    sharding: false,
    replicaUrl: null,
    leaseTtlMs: 30_000,
    supervisorIntervalMs: 5_000,
    webhookTimeoutMs: 10_000,
    sendsPerMinute: 20,
    warmupDailyCaps: defaultWarmupDailyCaps,
    alertWebhookUrl: null,
  });
});

test("replicas: sharding with a replica URL and PostgreSQL; a short lease brings the supervisor's interval down to a third of it", () => {
  const settings = parseGatewaySettings({ GATEWAY_DATABASE_URL: postgres, SHARDING_ENABLED: "true", REPLICA_URL: "http://10.0.0.11:8101/", GATEWAY_LEASE_TTL_MS: "3000", GATEWAY_WARMUP_DAILY_CAPS: "off" });
  expect([settings.sharding, settings.replicaUrl, settings.leaseTtlMs, settings.supervisorIntervalMs, settings.warmupDailyCaps]).toEqual([true, "http://10.0.0.11:8101", 3_000, 1_000, []]);
  expect(parseGatewaySettings({ GATEWAY_WARMUP_DAILY_CAPS: "10, 20" }).warmupDailyCaps).toEqual([10, 20]);
});

test("every value the gateway cannot run with is refused with what to do", () => {
  const refusals: [Record<string, string>, string][] = [
    [{ GATEWAY_DATABASE_URL: "mysql://x" }, 'GATEWAY_DATABASE_URL must be a postgres:// URL, got "mysql://x"'],
    [{ GATEWAY_ROOT_KEY: "short" }, "GATEWAY_ROOT_KEY must be at least 24 characters"],
    [{ GATEWAY_NETWORK: "telegram" }, 'GATEWAY_NETWORK must be baileys or simulated, got "telegram"'],
    [{ SHARDING_ENABLED: "yes" }, 'SHARDING_ENABLED must be true or false, got "yes"'],
    [{ SHARDING_ENABLED: "true", GATEWAY_DATABASE_URL: postgres }, "SHARDING_ENABLED=true needs REPLICA_URL (where the other replicas reach this one)"],
    [{ SHARDING_ENABLED: "true", REPLICA_URL: "http://a:1" }, "SHARDING_ENABLED=true needs GATEWAY_DATABASE_URL (replicas share their leases in PostgreSQL)"],
    [{ REPLICA_URL: "ftp://a" }, "REPLICA_URL must be an http:// or https:// URL"],
    [{ ALERT_WEBHOOK_URL: "hooks.slack.com/x" }, "ALERT_WEBHOOK_URL must be an http:// or https:// URL"],
    [{ GATEWAY_LEASE_TTL_MS: "0" }, 'GATEWAY_LEASE_TTL_MS must be a positive integer, got "0"'],
    [{ GATEWAY_SENDS_PER_MINUTE: "1.5" }, 'GATEWAY_SENDS_PER_MINUTE must be a positive integer, got "1.5"'],
    [{ GATEWAY_LEASE_TTL_MS: "3000", GATEWAY_SUPERVISOR_INTERVAL_MS: "1001" }, "GATEWAY_SUPERVISOR_INTERVAL_MS must be at most a third of GATEWAY_LEASE_TTL_MS (leases are renewed by the supervisor)"],
    [{ GATEWAY_WARMUP_DAILY_CAPS: "10,x" }, 'GATEWAY_WARMUP_DAILY_CAPS must be "off" or positive integers separated by commas'],
  ];
  for (const [env, message] of refusals) expect(() => parseGatewaySettings(env)).toThrow(new GatewaySettingsError(message));
});

test("SERVICES picks what a process runs: everything by default, the gateway alone or the mail API alone", () => {
  expect(loadConfig({}).services).toBe("all");
  expect(loadConfig({ SERVICES: "gateway" }).services).toBe("gateway");
  expect(loadConfig({ SERVICES: "mail" }).services).toBe("mail");
  expect(() => loadConfig({ SERVICES: "analytics" })).toThrow(new ConfigError('SERVICES must be "all", "gateway" or "mail", got "analytics"'));
});
