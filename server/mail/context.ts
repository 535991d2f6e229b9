// What the mail API's routes share.
import type { MailAuth } from "./auth.ts";
import type { DomainsService } from "./domains/domains-service.ts";
import type { EmailsService } from "./sending/emails-service.ts";
import type { SendService } from "./sending/send-service.ts";
import type { SuppressionsService } from "./sending/suppressions-service.ts";
import type { UsageService } from "./plans/usage-service.ts";
import type { MailSettings } from "./settings.ts";
import type { MailDatabase } from "./store/database.ts";
import type { TemplatesService } from "./templates-service.ts";
import type { TenantsService } from "./tenants-service.ts";
import type { WebhooksService } from "./webhooks/webhooks-service.ts";

export interface MailContext {
  settings: MailSettings;
  database: MailDatabase;
  auth: MailAuth;
  tenants: TenantsService;
  domains: DomainsService;
  send: SendService;
  emails: EmailsService;
  suppressions: SuppressionsService;
  webhooks: WebhooksService;
  usage: UsageService;
  templates: TemplatesService;
  now: () => number;
}
