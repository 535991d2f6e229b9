// The messaging gateway as one unit a process can serve: its store (SQLite in DATA_DIR, or
// the PostgreSQL of GATEWAY_DATABASE_URL), its root key, and its HTTP app mounted at `prefix`
// (`/gateway` inside the one process `npm start` runs, `` when it runs alone).
import { Elysia } from "elysia";
import { join } from "node:path";
import { apiErrorHandler } from "../http/elysia-errors.ts";
import { GatewayAuth } from "./auth.ts";
import type { GatewayContext } from "./context.ts";
import { ProjectsService } from "./projects-service.ts";
import { adminAuditRoutes, projectAuditRoutes } from "./routes/audit.ts";
import { publicRoutes } from "./routes/public.ts";
import { rootProjectRoutes } from "./routes/root-projects.ts";
import { loadRootKey } from "./secrets.ts";
import type { GatewaySettings } from "./settings.ts";
import { AuditStore } from "./store/audit.ts";
import { openGatewayDatabase } from "./store/database.ts";
import { ProjectStore } from "./store/projects.ts";

export const gatewaySqliteFile = "gateway.sqlite";
export const gatewayRootKeyFile = "gateway-root-key";

export interface RunningGateway {
  handle(request: Request): Promise<Response>;
  /** The root key when this start made it (print it once); null when it was configured or kept. */
  createdRootKey: string | null;
  ctx: GatewayContext;
  close(): Promise<void>;
}

export async function startGateway(settings: GatewaySettings, dataDir: string, prefix: string): Promise<RunningGateway> {
  const database = await openGatewayDatabase(settings.databaseUrl ?? join(dataDir, gatewaySqliteFile));
  const rootKey = loadRootKey(settings.rootKey, join(dataDir, gatewayRootKeyFile));
  const projectStore = new ProjectStore(database.sql);
  const audit = new AuditStore(database.sql);
  const ctx: GatewayContext = {
    settings,
    database,
    auth: new GatewayAuth(rootKey.hash, projectStore),
    projects: new ProjectsService(projectStore, audit),
    audit,
  };
  const app = new Elysia({ name: "gateway", prefix })
    .onError(apiErrorHandler)
    .use(publicRoutes(ctx))
    .use(rootProjectRoutes(ctx))
    .use(projectAuditRoutes(ctx))
    .use(adminAuditRoutes(ctx));
  return { handle: (request) => app.handle(request), createdRootKey: rootKey.created, ctx, close: () => database.close() };
}
