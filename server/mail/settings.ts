// The mail service's settings (environment variables, documented in the README and docs/mail.md).
import { isPostgresUrl } from "../sql-store/open.ts";
import { parseRelayUrl } from "./delivery/relay.ts";
import { smtpPort } from "./delivery/smtp-delivery.ts";

export interface MailSettings {
  /** postgres://… when several processes serve the mail API; null: SQLite in DATA_DIR. */
  databaseUrl: string | null;
  /** The operator's key; null: made on first start and kept in DATA_DIR (mail-root-key). */
  rootKey: string | null;
  /** The host name our MX and return-path records point at, and our SMTP greeting. */
  hostname: string;
  /** DNS servers for verification and MX lookups (`host` or `host:port`); empty: the system's. */
  dnsServers: string[];
  /** How often each domain's records are checked again. */
  domainCheckIntervalMs: number;
  /** The port of recipients' MX hosts: 25, as SMTP says; another only for tests and private networks. */
  deliveryPort: number;
  /** smtp:// or smtps:// URL of a relay all mail goes through; null: straight to each domain's MX. */
  relayUrl: string | null;
  /** Requests per tenant key: refilled per second, and at once (docs/mail.md, "Plans and limits"). */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  /** The inbound SMTP server's port (0: any free one); null: no inbound server. */
  smtpPort: number | null;
  /** The address the inbound SMTP server listens on. */
  smtpHost: string;
  /** PEM files for STARTTLS; both or neither (then STARTTLS is not offered). */
  smtpTls: { keyFile: string; certFile: string } | null;
}

export class MailSettingsError extends Error {}

export const defaultDomainCheckIntervalMs = 3_600_000;
export const defaultRateLimitPerSecond = 10;
export const defaultRateLimitBurst = 20;
export const defaultSmtpPort = 2525;
export const defaultSmtpHost = "0.0.0.0";
const portMax = 65_535;
const hostnamePattern = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const dnsServerPattern = /^(\[[0-9a-f:]+\]|[0-9.]+|[0-9a-f:]+)(:\d{1,5})?$/i;

export function parseMailSettings(env: Record<string, string | undefined>, publicUrl: string | null): MailSettings {
  const databaseUrl = env.MAIL_DATABASE_URL?.trim() || null;
  if (databaseUrl && !isPostgresUrl(databaseUrl)) throw new MailSettingsError("MAIL_DATABASE_URL must be a postgres:// URL");
  const rootKey = env.MAIL_ROOT_KEY?.trim() || null;
  if (rootKey !== null && rootKey.length < 24) throw new MailSettingsError("MAIL_ROOT_KEY must be at least 24 characters");
  const hostname = env.MAIL_HOSTNAME?.trim() || (publicUrl ? new URL(publicUrl).hostname : "localhost");
  if (!hostnamePattern.test(hostname)) throw new MailSettingsError(`MAIL_HOSTNAME must be a host name, got "${hostname.slice(0, 60)}"`);
  const dnsServers = (env.MAIL_DNS_SERVERS ?? "").split(",").map((server) => server.trim()).filter(Boolean);
  const badServer = dnsServers.find((server) => !dnsServerPattern.test(server));
  if (badServer) throw new MailSettingsError(`MAIL_DNS_SERVERS: "${badServer.slice(0, 60)}" is not an IP address with an optional :port`);
  const domainCheckIntervalMs = positiveInteger(env, "MAIL_DOMAIN_CHECK_INTERVAL_MS", defaultDomainCheckIntervalMs);
  const rateLimitPerSecond = positiveInteger(env, "MAIL_RATE_LIMIT_PER_SECOND", defaultRateLimitPerSecond);
  const rateLimitBurst = positiveInteger(env, "MAIL_RATE_LIMIT_BURST", defaultRateLimitBurst);
  const deliveryPort = positiveInteger(env, "MAIL_DELIVERY_PORT", smtpPort);
  if (deliveryPort > 65_535) throw new MailSettingsError("MAIL_DELIVERY_PORT must be a port number (1-65535)");
  const relayUrl = env.MAIL_RELAY_URL?.trim() || null;
  if (relayUrl !== null) {
    try {
      parseRelayUrl(relayUrl);
    } catch (error) {
      throw new MailSettingsError(`MAIL_RELAY_URL: ${(error as Error).message}`);
    }
  }
  return { databaseUrl, rootKey, hostname: hostname.toLowerCase(), dnsServers, domainCheckIntervalMs, rateLimitPerSecond, rateLimitBurst, deliveryPort, relayUrl, ...parseSmtpSettings(env) };
}

function positiveInteger(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  const value = raw ? Number(raw) : fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new MailSettingsError(`${name} must be a positive integer`);
  return value;
}

function parseSmtpSettings(env: Record<string, string | undefined>): Pick<MailSettings, "smtpPort" | "smtpHost" | "smtpTls"> {
  const portRaw = env.MAIL_SMTP_PORT?.trim() || String(defaultSmtpPort);
  const smtpPort = portRaw.toLowerCase() === "off" ? null : Number(portRaw);
  if (smtpPort !== null && (!/^\d+$/.test(portRaw) || smtpPort > portMax)) throw new MailSettingsError(`MAIL_SMTP_PORT must be a port (0-${portMax}) or "off", got "${portRaw.slice(0, 60)}"`);
  const smtpHost = env.MAIL_SMTP_HOST?.trim() || defaultSmtpHost;
  const keyFile = env.MAIL_SMTP_TLS_KEY_FILE?.trim() || null;
  const certFile = env.MAIL_SMTP_TLS_CERT_FILE?.trim() || null;
  if ((keyFile === null) !== (certFile === null)) throw new MailSettingsError("MAIL_SMTP_TLS_KEY_FILE and MAIL_SMTP_TLS_CERT_FILE are set together or not at all");
  return { smtpPort, smtpHost, smtpTls: keyFile && certFile ? { keyFile, certFile } : null };
}
