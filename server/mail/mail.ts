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
import { apiKeyRoutes } from "./routes/api-keys.ts";
import { domainRoutes } from "./routes/domains.ts";
import { templateRoutes } from "./routes/templates.ts";
import { tenantRoutes } from "./routes/tenants.ts";
import type { MailSettings } from "./settings.ts";
import { openMailDatabase } from "./store/database.ts";
import { DomainStore } from "./store/domains.ts";
import { TemplateStore } from "./store/templates.ts";
import { TenantStore } from "./store/tenants.ts";
import { TemplatesService } from "./templates-service.ts";
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
  close(): Promise<void>;
}

export interface MailOptions {
  now?: () => number;
  log?: (line: string) => void;
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
  const templates = new TemplatesService(new TemplateStore(database.sql), now);
  const ctx: MailContext = { settings, database, auth: new MailAuth(rootKey.hash, tenantStore), tenants: new TenantsService(tenantStore, domainStore, now), domains, templates, now };
  const app = new Elysia({ name: "mail", prefix })
    .onError(apiErrorHandler)
    .get("/", () => ({
      service: "transactional-mail",
      description: "Sends email from verified domains, signed with DKIM, and reports every hop. Every route but this one needs Authorization: Bearer <API key>.",
    }))
    .use(tenantRoutes(ctx))
    .use(apiKeyRoutes(ctx))
    .use(domainRoutes(ctx))
    .use(templateRoutes(ctx));

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
    close: async () => {
      clearInterval(timer);
      await database.close();
    },
  };
}
