// The transactional-mail API as one unit a process can serve: its store (SQLite in DATA_DIR, or
// the PostgreSQL of MAIL_DATABASE_URL), its root key, the schedule that re-checks domains'
// DNS records, and its HTTP app mounted at `prefix` (`/mail` inside the one process).
import { Elysia } from "elysia";
import { promises as dns } from "node:dns";
import { join } from "node:path";
import { apiErrorHandler } from "../http/elysia-errors.ts";
import { loadRootKey } from "../service-keys.ts";
import { MailAuth } from "./auth.ts";
import type { MailContext } from "./context.ts";
import { DomainsService } from "./domains/domains-service.ts";
import { startInbound } from "./inbound/inbound.ts";
import { loggingReportHandler, type ReportHandler } from "./inbound/report-handler.ts";
import { apiKeyRoutes } from "./routes/api-keys.ts";
import { domainRoutes } from "./routes/domains.ts";
import { inboundRoutes } from "./routes/inbound.ts";
import { tenantRoutes } from "./routes/tenants.ts";
import type { MailSettings } from "./settings.ts";
import { openMailDatabase } from "./store/database.ts";
import { DomainStore } from "./store/domains.ts";
import { TenantStore } from "./store/tenants.ts";
import { mailRootKeyPrefix, TenantsService } from "./tenants-service.ts";

export const mailSqliteFile = "mail.sqlite";
export const mailRootKeyFile = "mail-root-key";
/** Domains checked per scheduled pass. */
export const domainChecksPerPass = 50;

export interface RunningMail {
  handle(request: Request): Promise<Response>;
  createdRootKey: string | null;
  ctx: MailContext;
  /** One scheduled pass now: re-checks the domains whose last check is older than the interval. */
  checkDomains(): Promise<number>;
  /** The inbound SMTP server's port; null when MAIL_SMTP_PORT is `off`. */
  smtpPort: number | null;
  close(): Promise<void>;
}

export interface MailOptions {
  now?: () => number;
  log?: (line: string) => void;
  /** Takes the bounces and complaints arriving at return paths; default: logs them. */
  reports?: ReportHandler;
  /** The mail API's base URL for links (`raw_url`), read when one is made; default: `prefix`. */
  apiUrl?: () => string;
}

export async function startMail(settings: MailSettings, dataDir: string, prefix: string, options: MailOptions = {}): Promise<RunningMail> {
  const now = options.now ?? Date.now;
  const log = options.log ?? ((line: string) => console.error(line));
  const database = await openMailDatabase(settings.databaseUrl ?? join(dataDir, mailSqliteFile));
  const rootKey = loadRootKey(settings.rootKey, join(dataDir, mailRootKeyFile), mailRootKeyPrefix);
  const newResolver = () => {
    const resolver = new dns.Resolver();
    if (settings.dnsServers.length > 0) resolver.setServers(settings.dnsServers);
    return resolver;
  };
  const tenantStore = new TenantStore(database.sql);
  const domainStore = new DomainStore(database.sql);
  const domains = new DomainsService(domainStore, newResolver, settings.hostname, now);
  const inbound = await startInbound({ settings, sql: database.sql, domains: domainStore, newResolver, reports: options.reports ?? loggingReportHandler(log), apiUrl: options.apiUrl ?? (() => prefix), now, log });
  const ctx: MailContext = { settings, database, auth: new MailAuth(rootKey.hash, tenantStore), tenants: new TenantsService(tenantStore, domainStore, now), domains, now };
  const app = new Elysia({ name: "mail", prefix })
    .onError(apiErrorHandler)
    .get("/", () => ({
      service: "transactional-mail",
      description: "Sends email from verified domains, signed with DKIM, and reports every hop. Every route but this one needs Authorization: Bearer <API key>.",
    }))
    .use(tenantRoutes(ctx))
    .use(apiKeyRoutes(ctx))
    .use(domainRoutes(ctx))
    .use(inboundRoutes(ctx, inbound));

  const checkDomains = async () => {
    let checked = 0;
    for (const domain of await domainStore.due(now() - settings.domainCheckIntervalMs, domainChecksPerPass)) {
      const { transition } = await domains.check(domain);
      if (transition) log(`mail: ${domain.name} is now ${transition === "domain.verified" ? "verified" : "failed"}`);
      checked += 1;
    }
    return checked;
  };
  const timer = setInterval(() => void checkDomains().catch((error: Error) => log(`mail: domain checks failed: ${error.message}`)), Math.min(settings.domainCheckIntervalMs, 60_000));
  timer.unref?.();
  return {
    handle: (request) => app.handle(request),
    createdRootKey: rootKey.created,
    ctx,
    checkDomains,
    smtpPort: inbound.smtpPort,
    close: async () => {
      clearInterval(timer);
      await inbound.close();
      await database.close();
    },
  };
}
