// The mail service's settings (environment variables, documented in the README and docs/mail.md).
import { isPostgresUrl } from "../sql-store/open.ts";

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
  /** The inbound SMTP server's port (0: any free one); null: no inbound server. */
  smtpPort: number | null;
  /** The address the inbound SMTP server listens on. */
  smtpHost: string;
  /** PEM files for STARTTLS; both or neither (then STARTTLS is not offered). */
  smtpTls: { keyFile: string; certFile: string } | null;
}

export class MailSettingsError extends Error {}

export const defaultDomainCheckIntervalMs = 3_600_000;
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
  const intervalRaw = env.MAIL_DOMAIN_CHECK_INTERVAL_MS?.trim();
  const domainCheckIntervalMs = intervalRaw ? Number(intervalRaw) : defaultDomainCheckIntervalMs;
  if (!Number.isInteger(domainCheckIntervalMs) || domainCheckIntervalMs <= 0) throw new MailSettingsError("MAIL_DOMAIN_CHECK_INTERVAL_MS must be a positive integer");
  return { databaseUrl, rootKey, hostname: hostname.toLowerCase(), dnsServers, domainCheckIntervalMs, ...parseSmtpSettings(env) };
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
