// The operator's views (root key): every instance with its owner, the alert rules (503 while a
// critical one fires), Prometheus metrics, shards, delivery health, the number registry, and a
// supervisor pass on demand.
import { Elysia } from "elysia";
import type { GatewayContext } from "../context.ts";
import { adminInstanceDto } from "../dto.ts";
import { PageQuery, page } from "../../http/paging.ts";

export const adminRoutes = (ctx: GatewayContext) =>
  new Elysia()
    // The body is parsed before transform runs: without this, a malformed body would be a 400 to anyone.
    .onParse(async ({ request }) => void (await ctx.auth.root(request.headers.get("apikey"))))
    .onTransform(({ request }) => ctx.auth.root(request.headers.get("apikey")))
    .get(
      "/v1/admin/instances",
      async ({ query }) => {
        const { items, nextCursor } = await page(query, (limit, after) => ctx.instanceStore.list(null, limit, after));
        return { instances: items.map((instance) => adminInstanceDto(instance, ctx.now())), nextCursor };
      },
      { query: PageQuery },
    )
    .get("/v1/admin/alerts", async ({ set }) => {
      const alerts = await ctx.supervisor.alertsNow();
      const firing = alerts.filter((alert) => alert.firing);
      const status = firing.some((alert) => alert.severity === "critical") ? "critical" : firing.length > 0 ? "warning" : "ok";
      if (status === "critical") set.status = 503;
      return { status, alerts };
    })
    .get("/v1/admin/metrics", async () => new Response(await ctx.metrics.exposition(), { headers: { "content-type": ctx.metrics.contentType } }))
    .get("/v1/admin/shards", async () => ({ sharding: ctx.settings.sharding, ...(await ctx.views.shards(await ctx.leases.liveReplicas(), ctx.replica)) }))
    .get("/v1/admin/delivery-health", async () => ({ numbers: await ctx.views.deliveryHealth() }))
    .get("/v1/admin/numbers", async () => ({ numbers: await ctx.views.numbers() }))
    .post("/v1/admin/sweep", async () => {
      const result = await ctx.supervisor.sweep();
      return { replica: ctx.replica, ...result };
    });
