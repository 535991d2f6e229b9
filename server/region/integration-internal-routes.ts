// The control plane's side door for revenue integrations (split deployment; in one process the
// region link calls the store directly): PUT /internal/integrations takes the latest state of
// some integrations (`replace`: all of the region's, any other is removed), DELETE
// /internal/integrations/{id} removes one. The webhook route reads them (server/ingest/revenue/).
import { Elysia, t } from "elysia";
import { readJsonBody } from "../http/body.ts";
import { validateBody } from "../http/validate.ts";
import { revenueProviders } from "../ingest/revenue/provider.ts";
import type { RegionNode } from "./region-node.ts";

/** A full push carries every integration of the region; each is small (the control plane bounds config and secret). */
const internalIntegrationsBodyBytesMax = 32 * 1024 * 1024;

const IntegrationsRequest = t.Object({
  integrations: t.Array(t.Object({
    id: t.String({ minLength: 1, maxLength: 64 }),
    token: t.String({ minLength: 1, maxLength: 200 }),
    projectId: t.String({ minLength: 1, maxLength: 64 }),
    dataId: t.Integer({ minimum: 1 }),
    provider: t.Union(revenueProviders.map((provider) => t.Literal(provider))),
    status: t.Union([t.Literal("active"), t.Literal("disabled")]),
    secret: t.Union([t.String(), t.Null()]),
    config: t.Record(t.String(), t.Unknown()),
    retentionDays: t.Integer({ minimum: 1 }),
  })),
  replace: t.Boolean(),
});

export function integrationInternalRoutes(node: RegionNode, checkSecret: (request: Request) => void) {
  return new Elysia({ name: `region-integrations-internal-${node.code}` })
    .put("/internal/integrations", async ({ request }) => {
      checkSecret(request);
      const body = validateBody<typeof IntegrationsRequest.static>(IntegrationsRequest, await readJsonBody(request, internalIntegrationsBodyBytesMax));
      if (body.replace) node.store.integrations.replaceAll(body.integrations);
      else node.store.integrations.upsert(body.integrations);
      return new Response(null, { status: 204 });
    }, { parse: "none" })
    .delete("/internal/integrations/:id", ({ request, params }) => {
      checkSecret(request);
      node.store.integrations.delete(params.id);
      return new Response(null, { status: 204 });
    });
}
