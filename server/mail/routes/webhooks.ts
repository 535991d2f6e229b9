// A tenant's webhook endpoints (its full-access key): add one (the signing secret shown only
// then), list, read, change, delete, rotate the secret (the new one shown only then), and each
// endpoint's deliveries with their attempts, a delivered or failed one replayable.
import { Elysia, t } from "elysia";
import { validation } from "../../http/errors.ts";
import { page, PageQuery, pageSizeMax } from "../../http/paging.ts";
import { validateBody } from "../../http/validate.ts";
import type { MailContext } from "../context.ts";
import { mailEventTypes } from "../store/events.ts";
import { webhookDeliveryDto, webhookDto } from "../webhook-dto.ts";
import { webhookUrlLengthMax } from "../webhooks/webhook-url.ts";

const Id = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
const DeliveryId = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }), delivery_id: t.String({ minLength: 1, maxLength: 64 }) });
// Event names are checked by the service, which names the allowed ones; here only their shape.
const EventList = t.Array(t.String({ maxLength: 64 }), { maxItems: mailEventTypes.length * 2 });
const Url = t.String({ minLength: 1, maxLength: webhookUrlLengthMax });
const CreateWebhookRequest = t.Object({ url: Url, events: EventList }, { additionalProperties: false });
const UpdateWebhookRequest = t.Object({ url: t.Optional(Url), events: t.Optional(EventList), enabled: t.Optional(t.Boolean()) }, { additionalProperties: false });
const DeliveriesQuery = t.Object(
  {
    limit: t.Optional(t.Integer({ minimum: 1, maximum: pageSizeMax })),
    cursor: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    state: t.Optional(t.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const webhookRoutes = (ctx: MailContext) =>
  new Elysia()
    .onParse(async ({ request }) => void (await ctx.auth.tenant(request, "full")))
    .derive(async ({ request }) => ({ caller: await ctx.auth.tenant(request, "full") }))
    .post("/v1/webhooks", async ({ caller, body, set }) => {
      const input = validateBody<typeof CreateWebhookRequest.static>(CreateWebhookRequest, body);
      const webhook = await ctx.webhooks.add(caller.tenantId, input);
      set.status = 201;
      return { ...webhookDto(webhook), secret: webhook.secret };
    })
    .get(
      "/v1/webhooks",
      async ({ caller, query }) => {
        const { items, nextCursor } = await page(query, (limit, after) => ctx.webhooks.list(caller.tenantId, limit, after));
        return { data: items.map(webhookDto), next_cursor: nextCursor };
      },
      { query: PageQuery },
    )
    .get("/v1/webhooks/:id", async ({ caller, params }) => webhookDto(await ctx.webhooks.get(caller.tenantId, params.id)), { params: Id })
    .patch(
      "/v1/webhooks/:id",
      async ({ caller, params, body }) => {
        const input = validateBody<typeof UpdateWebhookRequest.static>(UpdateWebhookRequest, body);
        if (input.url === undefined && input.events === undefined && input.enabled === undefined) throw validation("body: name at least one of url, events, enabled");
        return webhookDto(await ctx.webhooks.update(caller.tenantId, params.id, input));
      },
      { params: Id },
    )
    .delete(
      "/v1/webhooks/:id",
      async ({ caller, params }) => {
        await ctx.webhooks.remove(caller.tenantId, params.id);
        return { id: params.id, deleted: true };
      },
      { params: Id },
    )
    .post(
      "/v1/webhooks/:id/rotate-secret",
      async ({ caller, params }) => {
        const webhook = await ctx.webhooks.rotateSecret(caller.tenantId, params.id);
        return { ...webhookDto(webhook), secret: webhook.secret };
      },
      { params: Id },
    )
    .get(
      "/v1/webhooks/:id/deliveries",
      async ({ caller, params, query }) => {
        const { items, nextCursor } = await page(query, (limit, after) => ctx.webhooks.deliveriesOf(caller.tenantId, params.id, query.state ?? null, limit, after));
        return { data: items.map(webhookDeliveryDto), next_cursor: nextCursor };
      },
      { params: Id, query: DeliveriesQuery },
    )
    .post(
      "/v1/webhooks/:id/deliveries/:delivery_id/replay",
      async ({ caller, params }) => webhookDeliveryDto(await ctx.webhooks.replay(caller.tenantId, params.id, params.delivery_id)),
      { params: DeliveryId },
    );
