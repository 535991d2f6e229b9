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
import { webhookRoutes } from "./routes/webhooks.ts";
import { tenantRoutes } from "./routes/tenants.ts";
import type { MailSettings } from "./settings.ts";
import { openMailDatabase } from "./store/database.ts";
import { DomainStore } from "./store/domains.ts";
import { EventStore } from "./store/events.ts";
import { TenantStore } from "./store/tenants.ts";
import { WebhookDeliveryStore } from "./store/webhook-deliveries.ts";
import { WebhookStore } from "./store/webhooks.ts";
import { mailRootKeyPrefix, TenantsService } from "./tenants-service.ts";
import { WebhookWorker, webhookTimeoutMs } from "./webhooks/webhook-worker.ts";
import { WebhooksService } from "./webhooks/webhooks-service.ts";

export const mailSqliteFile = "mail.sqlite";
export const mailRootKeyFile = "mail-root-key";
/** Domains checked per scheduled pass. */
export const domainChecksPerPass = 50;
/** How often the webhook worker fans out new events and posts what is due. */
export const webhookPassIntervalMs = 1_000;

export interface RunningMail {
  handle(request: Request): Promise<Response>;
  createdRootKey: string | null;
  ctx: MailContext;
  /** One scheduled pass now: re-checks the domains whose last check is older than the interval. */
  checkDomains(): Promise<number>;
  /** One webhook pass now (fan-out, then every delivery due); resolves with the HTTP attempts made. */
  deliverWebhooks(): Promise<number>;
  close(): Promise<void>;
}

export interface MailOptions {
  now?: () => number;
  log?: (line: string) => void;
  /** How long a webhook receiver has to answer (default webhookTimeoutMs). */
  webhookTimeoutMs?: number;
  /** How often the webhook worker runs on its own (default webhookPassIntervalMs; tests run it with deliverWebhooks). */
  webhookPassIntervalMs?: number;
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
  const events = new EventStore(database.sql);
  const domains = new DomainsService(domainStore, newResolver, settings.hostname, now, events);
  const webhookStores = { events, webhooks: new WebhookStore(database.sql), deliveries: new WebhookDeliveryStore(database.sql) };
  const webhookWorker = new WebhookWorker({ ...webhookStores, now, fetch, timeoutMs: options.webhookTimeoutMs ?? webhookTimeoutMs, log });
  const webhooks = new WebhooksService(webhookStores.webhooks, webhookStores.deliveries, now);
  const ctx: MailContext = { settings, database, auth: new MailAuth(rootKey.hash, tenantStore), tenants: new TenantsService(tenantStore, domainStore, now), domains, webhooks, now };
  const app = new Elysia({ name: "mail", prefix })
    .onError(apiErrorHandler)
    .get("/", () => ({
      service: "transactional-mail",
      description: "Sends email from verified domains, signed with DKIM, and reports every hop. Every route but this one needs Authorization: Bearer <API key>.",
    }))
    .use(tenantRoutes(ctx))
    .use(apiKeyRoutes(ctx))
    .use(domainRoutes(ctx))
    .use(webhookRoutes(ctx));

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
  const webhookTimer = setInterval(() => void webhookWorker.run(), options.webhookPassIntervalMs ?? webhookPassIntervalMs);
  webhookTimer.unref?.();
  return {
    handle: (request) => app.handle(request),
    createdRootKey: rootKey.created,
    ctx,
    checkDomains,
    deliverWebhooks: () => webhookWorker.run(),
    close: async () => {
      clearInterval(timer);
      clearInterval(webhookTimer);
      await webhookWorker.stop();
      await database.close();
    },
  };
}
