// Inbound deliveries: a project's queue and dead letters (its key), every project's (the root
// key), and the replay of one dead letter (410 once its payload expired, after 30 days).
import { Elysia, t } from "elysia";
import type { GatewayContext } from "../context.ts";
import { deliveryDto } from "../dto.ts";
import { deliveryStates } from "../store/deliveries.ts";
import { replayDelivery } from "../views.ts";
import { page, pageSizeMax } from "../../http/paging.ts";

const Id = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
export const DeliveriesQuery = t.Object(
  {
    limit: t.Optional(t.Integer({ minimum: 1, maximum: pageSizeMax })),
    cursor: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    state: t.Optional(t.Union(deliveryStates.map((state) => t.Literal(state)))),
  },
  { additionalProperties: false },
);

const replay = async (ctx: GatewayContext, id: string, projectId: string | null) => {
  const replayed = await replayDelivery(ctx.deliveries, await ctx.deliveries.get(id), projectId, ctx.now());
  await ctx.audit.record({ projectId: replayed.projectId, actor: projectId === null ? "root" : "project", action: "delivery.replayed", target: id, detail: { event: replayed.event }, at: ctx.now() });
  ctx.kickDeliveries();
  return deliveryDto(replayed);
};

export const projectDeliveryRoutes = (ctx: GatewayContext) =>
  new Elysia()
    // The body is parsed before derive runs: without this, a malformed body would be a 400 to anyone.
    .onParse(async ({ request }) => void (await ctx.auth.project(request.headers.get("apikey"))))
    .derive(async ({ request }) => ({ caller: await ctx.auth.project(request.headers.get("apikey")) }))
    .get(
      "/v1/deliveries",
      async ({ caller, query }) => {
        const { items, nextCursor } = await page(query, (limit, after) => ctx.deliveries.list(caller.projectId, query.state ?? null, limit, after));
        return { deliveries: items.map(deliveryDto), nextCursor };
      },
      { query: DeliveriesQuery },
    )
    .post("/v1/deliveries/:id/replay", ({ caller, params }) => replay(ctx, params.id, caller.projectId), { params: Id });

export const adminDeliveryRoutes = (ctx: GatewayContext) =>
  new Elysia()
    // The body is parsed before transform runs: without this, a malformed body would be a 400 to anyone.
    .onParse(async ({ request }) => void (await ctx.auth.root(request.headers.get("apikey"))))
    .onTransform(({ request }) => ctx.auth.root(request.headers.get("apikey")))
    .get(
      "/v1/admin/deliveries",
      async ({ query }) => {
        const { items, nextCursor } = await page(query, (limit, after) => ctx.deliveries.list(null, query.state ?? null, limit, after));
        return { deliveries: items.map(deliveryDto), nextCursor };
      },
      { query: DeliveriesQuery },
    )
    .post("/v1/admin/deliveries/:id/replay", ({ params }) => replay(ctx, params.id, null), { params: Id });
