// What the gateway's routes share: its store, the caller check and the services on them.
import type { GatewayAuth } from "./auth.ts";
import type { ProjectsService } from "./projects-service.ts";
import type { GatewaySettings } from "./settings.ts";
import type { GatewayDatabase } from "./store/database.ts";
import type { AuditStore } from "./store/audit.ts";

export interface GatewayContext {
  settings: GatewaySettings;
  database: GatewayDatabase;
  auth: GatewayAuth;
  projects: ProjectsService;
  audit: AuditStore;
}
