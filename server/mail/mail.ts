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
import { rateLimitBucketsMax, RateLimiter } from "./plans/rate-limiter.ts";
import { sweepRetention } from "./plans/retention.ts";
import { UsageService } from "./plans/usage-service.ts";
import { apiKeyRoutes } from "./routes/api-keys.ts";
import { domainRoutes } from "./routes/domains.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { rateLimitHook } from "./routes/rate-limit.ts";
import { templateRoutes } from "./routes/templates.ts";
import { startInbound } from "./inbound/inbound.ts";
import type { ReportHandler } from "./inbound/report-handler.ts";
import { ReportsService } from "./sending/reports.ts";
import { inboundRoutes } from "./routes/inbound.ts";
import { tenantRoutes } from "./routes/tenants.ts";
import { usageRoutes } from "./routes/usage.ts";
import type { MailSettings } from "./settings.ts";
import { openMailDatabase } from "./store/database.ts";
import { DomainStore } from "./store/domains.ts";
import { EventStore } from "./store/events.ts";
import { TenantStore } from "./store/tenants.ts";
import { WebhookDeliveryStore } from "./store/webhook-deliveries.ts";
import { WebhookStore } from "./store/webhooks.ts";
import { UsageStore } from "./store/usage.ts";
import { TemplateStore } from "./store/templates.ts";
import { TemplatesService } from "./templates-service.ts";
import { mailRootKeyPrefix, TenantsService } from "./tenants-service.ts";
import { createMailDnsResolver } from "./delivery/mx.ts";
import type { DeliveryInput, DeliveryResult, DeliveryRoute } from "./delivery/smtp-delivery.ts";
import { emailRoutes, sendRoutes } from "./routes/emails.ts";
import { suppressionRoutes } from "./routes/suppressions.ts";
import { DeliveryQueue } from "./sending/delivery-queue.ts";
import { EmailsService } from "./sending/emails-service.ts";
import { SendService } from "./sending/send-service.ts";
import { SuppressionsService } from "./sending/suppressions-service.ts";
import { AttemptStore } from "./store/attempts.ts";
import { EmailStore } from "./store/emails.ts";
import { IdempotencyStore } from "./store/idempotency.ts";
import { QueueStore } from "./store/queue.ts";
import { SuppressionStore } from "./store/suppressions.ts";
import { WebhookWorker, webhookTimeoutMs } from "./webhooks/webhook-worker.ts";
import { WebhooksService } from "./webhooks/webhooks-service.ts";

export const mailSqliteFile = "mail.sqlite";
export const mailRootKeyFile = "mail-root-key";
/** Domains checked per scheduled pass. */
export const domainChecksPerPass = 50;
/** How often the delivery queue looks for recipients whose (re)try time has come. */
export const deliveryPassIntervalMs = 5_000;
/** How often the webhook worker fans out new events and posts what is due. */
export const webhookPassIntervalMs = 1_000;
/** How often the retention sweeper runs, and how many bounded passes it makes at most each time while they still find rows. */
export const retentionSweepIntervalMs = 60_000;
export const retentionPassesPerRun = 20;

export interface RunningMail {
  handle(request: Request): Promise<Response>;
  createdRootKey: string | null;
  ctx: MailContext;
  /** One scheduled pass now: re-checks the domains whose last check is older than the interval. */
  checkDomains(): Promise<number>;
  /** One delivery pass now (or the end of the running one): answers how many recipients it settled. */
  deliverQueued(): Promise<number>;
  /** One webhook pass now (fan-out, then every delivery due); resolves with the HTTP attempts made. */
  deliverWebhooks(): Promise<number>;
  /** One retention pass now (plans/retention.ts): the rows deleted. */
  sweepRetention(): Promise<number>;
  /** The inbound SMTP server's port; null when MAIL_SMTP_PORT is `off`. */
  smtpPort: number | null;
  close(): Promise<void>;
}

export interface MailOptions {
  now?: () => number;
  log?: (line: string) => void;
  /** How often the delivery queue runs on its own (default deliveryPassIntervalMs; tests run it with deliverQueued). */
  deliveryPassIntervalMs?: number;
  /** Replaces SMTP delivery (benchmarks of the API alone); the real one is the default. */
  deliver?: (input: DeliveryInput) => Promise<DeliveryResult>;
  /** How long a webhook receiver has to answer (default webhookTimeoutMs). */
  webhookTimeoutMs?: number;
  /** How often the webhook worker runs on its own (default webhookPassIntervalMs; tests run it with deliverWebhooks). */
  webhookPassIntervalMs?: number;
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
  const templates = new TemplatesService(new TemplateStore(database.sql), now);
  const limiter = new RateLimiter({ perSecond: settings.rateLimitPerSecond, burst: settings.rateLimitBurst, bucketsMax: rateLimitBucketsMax }, now);
  const usage = new UsageService(new UsageStore(database.sql), tenantStore);
  const eventStore = new EventStore(database.sql);
  const domains = new DomainsService(domainStore, newResolver, settings.hostname, now, eventStore);
  const webhookStores = { events: eventStore, webhooks: new WebhookStore(database.sql), deliveries: new WebhookDeliveryStore(database.sql) };
  const webhookWorker = new WebhookWorker({ ...webhookStores, now, fetch, timeoutMs: options.webhookTimeoutMs ?? webhookTimeoutMs, log });
  const emailStore = new EmailStore(database.sql);
  const attemptStore = new AttemptStore(database.sql);
  const suppressionStore = new SuppressionStore(database.sql);
  const queueStore = new QueueStore(database.sql);
  const route = (): DeliveryRoute =>
    settings.relayUrl === null ? { mode: "direct", resolver: createMailDnsResolver(settings.dnsServers), port: settings.deliveryPort } : { mode: "relay", url: settings.relayUrl };
  const queue = new DeliveryQueue({
    emails: emailStore,
    queue: queueStore,
    attempts: attemptStore,
    events: eventStore,
    suppressions: suppressionStore,
    domains: domainStore,
    route,
    heloName: settings.hostname,
    owner: `mail-${crypto.randomUUID()}`,
    now,
    log,
    deliver: options.deliver,
  });
  const send = new SendService({
    emails: emailStore,
    events: eventStore,
    suppressions: suppressionStore,
    idempotency: new IdempotencyStore(database.sql),
    domains,
    usage,
    findTemplate: (tenantId, id) => templates.find(tenantId, id),
    now,
    onQueued: () => queue.kick(),
  });
  const ctx: MailContext = {
    settings,
    database,
    auth: new MailAuth(rootKey.hash, tenantStore, limiter),
    tenants: new TenantsService(tenantStore, domainStore, now),
    domains,
    send,
    emails: new EmailsService(emailStore, eventStore, attemptStore, usage, now),
    suppressions: new SuppressionsService(suppressionStore, now),
    webhooks: new WebhooksService(webhookStores.webhooks, webhookStores.deliveries, now),
    usage,
    templates,
    now,
  };
  const inbound = await startInbound({ settings, sql: database.sql, domains: domainStore, newResolver, reports: options.reports ?? new ReportsService({ emails: emailStore, queue: queueStore, events: eventStore, suppressions: suppressionStore, now, log }), apiUrl: options.apiUrl ?? (() => prefix), now, log });
  const app = new Elysia({ name: "mail", prefix })
    .onError(apiErrorHandler)
    .get("/", () => ({
      service: "transactional-mail",
      description: "Sends email from verified domains, signed with DKIM, and reports every hop. Every route but this one needs Authorization: Bearer <API key>.",
    }))
    .use(rateLimitHook(ctx))
    .use(tenantRoutes(ctx))
    .use(apiKeyRoutes(ctx))
    .use(domainRoutes(ctx))
    .use(sendRoutes(ctx))
    .use(emailRoutes(ctx))
    .use(suppressionRoutes(ctx))
    .use(webhookRoutes(ctx))
    .use(usageRoutes(ctx))
    .use(templateRoutes(ctx))
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
  const deliveryTimer = setInterval(() => queue.kick(), options.deliveryPassIntervalMs ?? deliveryPassIntervalMs);
  deliveryTimer.unref?.();
  const webhookTimer = setInterval(() => void webhookWorker.run(), options.webhookPassIntervalMs ?? webhookPassIntervalMs);
  webhookTimer.unref?.();

  const retentionPass = () => sweepRetention(database.sql, now(), log);
  let sweeping = false;
  const sweepTimer = setInterval(async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      for (let pass = 0; pass < retentionPassesPerRun && (await retentionPass()) > 0; pass++);
    } catch (error) {
      log(`mail: retention sweep failed: ${(error as Error).message}`);
    } finally {
      sweeping = false;
    }
  }, retentionSweepIntervalMs);
  sweepTimer.unref?.();
  return {
    handle: (request) => app.handle(request),
    createdRootKey: rootKey.created,
    ctx,
    checkDomains,
    deliverQueued: () => queue.pass(),
    deliverWebhooks: () => webhookWorker.run(),
    sweepRetention: retentionPass,
    smtpPort: inbound.smtpPort,
    close: async () => {
      clearInterval(timer);
      clearInterval(deliveryTimer);
      clearInterval(webhookTimer);
      clearInterval(sweepTimer);
      await inbound.close();
      await queue.stop();
      await webhookWorker.stop();
      await database.close();
    },
  };
}
