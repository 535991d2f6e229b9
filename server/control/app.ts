// The control-plane surface: console /app, programmatic /v1, discovery and /health. Every
// route is mounted through one ContractRouteTable, so /openapi.json lists each of them.
import { Elysia } from "elysia";
import { readFormBody, readJsonBody } from "../http/body.ts";
import { apiErrorHandler } from "../http/elysia-errors.ts";
import type { ControlContext } from "./context.ts";
import { requestBodyBytesMax } from "./limits.ts";
import { ContractRouteTable } from "./contract/route-table.ts";
import { authRoutes } from "./routes/auth.ts";
import { discoveryRoutes } from "./routes/discovery.ts";
import { orgRoutes } from "./routes/orgs.ts";
import { billingRoutes, isPaymentWebhookPath, readWebhookBody } from "./routes/billing.ts";
import { projectRoutes } from "./routes/projects.ts";
import { tokenRoutes } from "./routes/tokens.ts";
import { formBodyPaths, oauthCorsPaths, oauthRoutes } from "./routes/oauth.ts";
import { mountPreflights } from "./oauth/cors.ts";
import { mountV1Routes } from "./v1/route.ts";
import { v1Routes } from "./v1/routes.ts";
import { v1FlagRoutes } from "./v1/flag-routes.ts";
import { v1IntegrationRoutes } from "./v1/integration-routes.ts";
import { integrationRoutes } from "./routes/integrations.ts";
import { findingsRoutes } from "./routes/findings.ts";
import { flagRoutes } from "./routes/flags.ts";
import { experimentRoutes } from "./routes/experiments.ts";
import { v1ExperimentRoutes } from "./v1/experiment-routes.ts";
import { insightRoutes } from "./routes/insights.ts";
import { dashboardRoutes } from "./routes/dashboards.ts";
import { annotationRoutes } from "./routes/annotations.ts";
import { cohortRoutes } from "./routes/cohorts.ts";
import { catalogRoutes } from "./routes/catalog.ts";
import { v1CatalogRoutes } from "./v1/catalog-routes.ts";
import { erasureRoutes } from "./routes/erasures.ts";
import { v1ErasureRoutes } from "./v1/erasure-routes.ts";

export function controlApp(ctx: ControlContext): ContractRouteTable {
  const app = new Elysia({ name: "control-plane" })
    .onParse(({ request, path }) => {
      if (formBodyPaths.has(path)) return readFormBody(request, requestBodyBytesMax);
      // A payment webhook's signature covers its exact bytes: handed over as text.
      if (isPaymentWebhookPath(path)) return readWebhookBody(request);
      return readJsonBody(request, requestBodyBytesMax);
    })
    .onError(apiErrorHandler);
  const routes = new ContractRouteTable(app);
  authRoutes(routes, ctx);
  orgRoutes(routes, ctx);
  billingRoutes(routes, ctx);
  projectRoutes(routes, ctx);
  flagRoutes(routes, ctx);
  integrationRoutes(routes, ctx);
  experimentRoutes(routes, ctx);
  findingsRoutes(routes, ctx);
  insightRoutes(routes, ctx);
  dashboardRoutes(routes, ctx);
  annotationRoutes(routes, ctx);
  cohortRoutes(routes, ctx);
  catalogRoutes(routes, ctx);
  tokenRoutes(routes, ctx);
  oauthRoutes(routes, ctx);
  mountPreflights(app, oauthCorsPaths);
  erasureRoutes(routes, ctx);
  discoveryRoutes(routes, ctx);
  mountV1Routes(routes, ctx, [...v1Routes(ctx), ...v1IntegrationRoutes(ctx), ...v1FlagRoutes(ctx), ...v1ExperimentRoutes(ctx), ...v1CatalogRoutes(ctx), ...v1ErasureRoutes(ctx)]);
  return routes;
}
