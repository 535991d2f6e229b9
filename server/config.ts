// Every setting is an environment variable; each is documented in the README with its default.
import type { X509Certificate } from "node:crypto";
import type { PaymentProvider } from "./control/billing/payment-provider.ts";
import { createPaymentProvider, PaymentProviderSettingsError } from "./control/billing/payment-provider-config.ts";
import { AppStoreRootsError, appStoreRootsSetting, loadAppStoreRoots } from "./ingest/revenue/providers/app-store-roots.ts";
import { resolve } from "node:path";
import { defaultColumnCacheBytes } from "../engine/chunk-store.ts";
import { queryRowsMax } from "../engine/query-data.ts";
import { defaultQueryWorkers, queryWorkersMax } from "../engine/parallel/settings.ts";
import { defaultResultCacheBytes } from "./region/result-cache.ts";
import { queryTimeoutMs } from "./region/query-service.ts";
import { replayFlushIntervalMs } from "../storage/replay/replay-store.ts";
import { findingsDailyCapDefault, findingsDailyCapMax } from "./findings/evaluation/findings-runner.ts";
import { defaultStorageTuning, segmentRowsMax, type StorageTuning } from "../storage/event-store.ts";
import { DatacenterRangesError, loadDatacenterRanges, type DatacenterRanges } from "./ingest/datacenter-ip.ts";
import { GatewaySettingsError, parseGatewaySettings, type GatewaySettings } from "./gateway/settings.ts";
import { MailSettingsError, parseMailSettings, type MailSettings } from "./mail/settings.ts";
import { ControlMailSettingsError, parseControlMailSettings, type ControlMailSettings } from "./control/mail/settings.ts";
import { AskSettingsError, parseAskSettings, type AskSettings } from "./region/ask/ask-settings.ts";

export const knownRegions = {
  eu: "Europe",
  us: "United States",
  me: "Middle East",
  pk: "Pakistan",
} as const;
export type RegionCode = keyof typeof knownRegions;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  regions: RegionCode[];
  /** Base URL clients use to reach this service; null means "the address we listen on". */
  publicUrl: string | null;
  cookieSecure: boolean;
  sessionTtlDays: number;
  /** Take the client address from X-Forwarded-For (only behind a trusted reverse proxy). */
  trustProxy: boolean;
  logRequests: boolean;
  /** Live regions served by another process: code -> that node's region API base URL. */
  remoteRegions: Partial<Record<RegionCode, string>>;
  /** Shared secret of the internal control-plane <-> region API; null disables it. */
  regionSecret: string | null;
  /** On a region node: the control plane whose JWKS and issuer region tokens must match. */
  controlPlaneUrl: string | null;
  storage: StorageTuning;
  /** How often each region compacts its replay log into blocks and sweeps old recordings (0: never, tests flush themselves). */
  replayFlushIntervalMs: number;
  /** Bound of the decoded-column cache shared by every region's queries, in bytes. */
  queryCacheBytes: number;
  /** Threads a query decodes Parquet with, the request thread included (1: no decode workers). */
  queryWorkers: number;
  /** A query that would read more rows fails with 422 query_too_large. */
  queryRowsMax: number;
  /** Bound of the result cache of POST /query shared by every region, in bytes. */
  queryResultCacheBytes: number;
  /** How long a query (/query, /sql, the schema routes, experiment stats) may run before 422 query_too_large. */
  queryTimeoutMs: number;
  /** Dynamic cohorts are recalculated this often (0: only when asked). */
  cohortRecalculateMinutes: number;
  /** Findings sent per rule per UTC day when the rule sets no daily_cap (docs/findings-evaluation.md). */
  findingsDailyCap: number;
  /** Datacenter address ranges (DATACENTER_RANGES_FILE, else the bundled list): events from them are marked suspect. */
  datacenterRanges: DatacenterRanges;
  /** The roots App Store notifications must chain to (APP_STORE_ROOT_CERTIFICATES, else the bundled Apple Root CA - G3). */
  appStoreRoots: X509Certificate[];
  /** The payment provider billing charges through (STRIPE_*; null: none, the self-hosted plan). */
  payments: PaymentProvider | null;
  /** The messaging gateway's settings (server/gateway/settings.ts). */
  gateway: GatewaySettings;
  /** The transactional-mail API's settings (server/mail/settings.ts). */
  mail: MailSettings;
  /** How the control plane sends its own mail (server/control/mail/settings.ts). */
  controlMail: ControlMailSettings;
  /** SERVICES: what this process runs: everything (`all`, the default), the gateway alone (`gateway`) or the mail API alone (`mail`). */
  services: ServiceSet;
  /** Ask's language model (ASK_*; null: none configured, POST /ask answers 503). */
  ask: AskSettings | null;
}

export class ConfigError extends Error {}

function parseBoolean(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes"].includes(raw.toLowerCase())) return true;
  if (["0", "false", "no"].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function parseInteger(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function parseRegions(raw: string | undefined): RegionCode[] {
  if (raw === undefined || raw.trim() === "") return Object.keys(knownRegions) as RegionCode[];
  const codes = raw.split(",").map((code) => code.trim().toLowerCase()).filter(Boolean);
  for (const code of codes) {
    if (!(code in knownRegions)) {
      throw new ConfigError(`REGIONS lists unknown region "${code}"; known: ${Object.keys(knownRegions).join(", ")}`);
    }
  }
  return [...new Set(codes)] as RegionCode[];
}

function parseRemoteRegions(raw: string | undefined, live: RegionCode[]): Partial<Record<RegionCode, string>> {
  const remote: Partial<Record<RegionCode, string>> = {};
  if (raw === undefined || raw.trim() === "") return remote;
  for (const entry of raw.split(",").map((part) => part.trim()).filter(Boolean)) {
    const [code, url] = entry.split("=", 2).map((part) => part?.trim());
    if (!code || !url || !/^https?:\/\//.test(url)) {
      throw new ConfigError(`REMOTE_REGIONS entries must look like "us=http://host:port/region/us", got "${entry}"`);
    }
    if (!live.includes(code as RegionCode)) throw new ConfigError(`REMOTE_REGIONS names "${code}", which is not in REGIONS`);
    remote[code as RegionCode] = url.replace(/\/+$/, "");
  }
  return remote;
}

const serviceSets = ["all", "gateway", "mail"] as const;
export type ServiceSet = (typeof serviceSets)[number];

function parseServices(raw: string | undefined): ServiceSet {
  const value = raw?.trim() || "all";
  if (!(serviceSets as readonly string[]).includes(value)) throw new ConfigError(`SERVICES must be "all", "gateway" or "mail", got "${value.slice(0, 40)}"`);
  return value as ServiceSet;
}

function parseMail(env: Record<string, string | undefined>, publicUrl: string | null): MailSettings {
  try {
    return parseMailSettings(env, publicUrl);
  } catch (error) {
    if (error instanceof MailSettingsError) throw new ConfigError(error.message);
    throw error;
  }
}

function parsePayments(env: Record<string, string | undefined>): PaymentProvider | null {
  try {
    return createPaymentProvider(env);
  } catch (error) {
    if (error instanceof PaymentProviderSettingsError) throw new ConfigError(error.message);
    throw error;
  }
}

function parseControlMail(env: Record<string, string | undefined>): ControlMailSettings {
  try {
    return parseControlMailSettings(env);
  } catch (error) {
    if (error instanceof ControlMailSettingsError) throw new ConfigError(error.message);
    throw error;
  }
}

function parseAsk(env: Record<string, string | undefined>): AskSettings | null {
  try {
    return parseAskSettings(env);
  } catch (error) {
    if (error instanceof AskSettingsError) throw new ConfigError(error.message);
    throw error;
  }
}

function parseGateway(env: Record<string, string | undefined>): GatewaySettings {
  try {
    return parseGatewaySettings(env);
  } catch (error) {
    if (error instanceof GatewaySettingsError) throw new ConfigError(error.message);
    throw error;
  }
}

function parseDatacenterRanges(raw: string | undefined): DatacenterRanges {
  const path = raw?.trim() ? resolve(raw.trim()) : null;
  try {
    return loadDatacenterRanges(path);
  } catch (error) {
    if (error instanceof DatacenterRangesError) throw new ConfigError(`DATACENTER_RANGES_FILE: ${error.message}`);
    throw error;
  }
}

function parseAppStoreRoots(raw: string | undefined): X509Certificate[] {
  try {
    return loadAppStoreRoots(raw);
  } catch (error) {
    if (error instanceof AppStoreRootsError) throw new ConfigError(`${appStoreRootsSetting}: ${error.message}`);
    throw error;
  }
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const publicUrl = env.PUBLIC_URL?.trim() ? env.PUBLIC_URL.trim().replace(/\/+$/, "") : null;
  const regions = parseRegions(env.REGIONS);
  const remoteRegions = parseRemoteRegions(env.REMOTE_REGIONS, regions);
  const regionSecret = env.REGION_SECRET?.trim() || null;
  if (Object.keys(remoteRegions).length > 0 && !regionSecret) {
    throw new ConfigError("REMOTE_REGIONS needs REGION_SECRET (the secret the region nodes were started with)");
  }
  return {
    port: parseInteger("PORT", env.PORT, 8000, 0, 65535),
    host: env.HOST?.trim() || "0.0.0.0",
    dataDir: resolve(env.DATA_DIR?.trim() || "./region-data"),
    regions,
    publicUrl,
    cookieSecure: parseBoolean("COOKIE_SECURE", env.COOKIE_SECURE, publicUrl?.startsWith("https://") ?? false),
    sessionTtlDays: parseInteger("SESSION_TTL_DAYS", env.SESSION_TTL_DAYS, 30, 1, 365),
    trustProxy: parseBoolean("TRUST_PROXY", env.TRUST_PROXY, false),
    logRequests: parseBoolean("LOG_REQUESTS", env.LOG_REQUESTS, false),
    remoteRegions,
    regionSecret,
    controlPlaneUrl: env.CONTROL_PLANE_URL?.trim() ? env.CONTROL_PLANE_URL.trim().replace(/\/+$/, "") : null,
    datacenterRanges: parseDatacenterRanges(env.DATACENTER_RANGES_FILE),
    appStoreRoots: parseAppStoreRoots(env[appStoreRootsSetting]),
    payments: parsePayments(env),
    gateway: parseGateway(env),
    mail: parseMail(env, publicUrl),
    controlMail: parseControlMail(env),
    services: parseServices(env.SERVICES),
    ask: parseAsk(env),
    cohortRecalculateMinutes: parseInteger("COHORT_RECALCULATE_MINUTES", env.COHORT_RECALCULATE_MINUTES, 60, 0, 7 * 24 * 60),
    findingsDailyCap: parseInteger("FINDINGS_DAILY_CAP", env.FINDINGS_DAILY_CAP, findingsDailyCapDefault, 0, findingsDailyCapMax),
    queryCacheBytes: parseInteger("QUERY_CACHE_MB", env.QUERY_CACHE_MB, defaultColumnCacheBytes / 1024 / 1024, 16, 1024 * 1024) * 1024 * 1024,
    queryWorkers: parseInteger("QUERY_WORKERS", env.QUERY_WORKERS, defaultQueryWorkers(), 1, queryWorkersMax),
    queryRowsMax: parseInteger("QUERY_ROWS_MAX", env.QUERY_ROWS_MAX, queryRowsMax, 1, queryRowsMax),
    queryTimeoutMs: parseInteger("QUERY_TIMEOUT_MS", env.QUERY_TIMEOUT_MS, queryTimeoutMs, 100, queryTimeoutMs),
    queryResultCacheBytes: parseInteger("QUERY_RESULT_CACHE_MB", env.QUERY_RESULT_CACHE_MB, defaultResultCacheBytes / 1024 / 1024, 1, 64 * 1024) * 1024 * 1024,
    replayFlushIntervalMs: parseInteger("REPLAY_FLUSH_INTERVAL_MS", env.REPLAY_FLUSH_INTERVAL_MS, replayFlushIntervalMs, 0, 3_600_000),
    storage: {
      sealRows: parseInteger("STORAGE_SEAL_ROWS", env.STORAGE_SEAL_ROWS, defaultStorageTuning.sealRows, 1, 10_000_000),
      sealBytes: parseInteger("STORAGE_SEAL_BYTES", env.STORAGE_SEAL_BYTES, defaultStorageTuning.sealBytes, 1, 1024 * 1024 * 1024),
      sealCells: parseInteger("STORAGE_SEAL_CELLS", env.STORAGE_SEAL_CELLS, defaultStorageTuning.sealCells, 1, 1 << 30),
      sealAgeMs: parseInteger("STORAGE_SEAL_AGE_MS", env.STORAGE_SEAL_AGE_MS, defaultStorageTuning.sealAgeMs, 1, 3_600_000),
      compactRows: parseInteger("STORAGE_COMPACT_ROWS", env.STORAGE_COMPACT_ROWS, defaultStorageTuning.compactRows, 1, 10_000_000),
      compactAgeMs: parseInteger("STORAGE_COMPACT_AGE_MS", env.STORAGE_COMPACT_AGE_MS, defaultStorageTuning.compactAgeMs, 1, 86_400_000),
      compactBacklogRows: parseInteger("STORAGE_COMPACT_BACKLOG_ROWS", env.STORAGE_COMPACT_BACKLOG_ROWS, defaultStorageTuning.compactBacklogRows, 1, segmentRowsMax),
      partRowsMax: parseInteger("STORAGE_PART_ROWS_MAX", env.STORAGE_PART_ROWS_MAX, defaultStorageTuning.partRowsMax, 1, 100_000_000),
      partBytesMax: parseInteger("STORAGE_PART_BYTES_MAX", env.STORAGE_PART_BYTES_MAX, defaultStorageTuning.partBytesMax, 1, 2 ** 31),
    },
  };
}
