// What the mail API's routes share.
import type { MailAuth } from "./auth.ts";
import type { DomainsService } from "./domains/domains-service.ts";
import type { MailSettings } from "./settings.ts";
import type { MailDatabase } from "./store/database.ts";
import type { TemplatesService } from "./templates-service.ts";
import type { TenantsService } from "./tenants-service.ts";

export interface MailContext {
  settings: MailSettings;
  database: MailDatabase;
  auth: MailAuth;
  tenants: TenantsService;
  domains: DomainsService;
  templates: TemplatesService;
  now: () => number;
}
