// A project's sending: queue a message (202 once it is durably queued; Idempotency-Key makes a
// retry safe), the queue and one message's state, cancel a queued one, the outbound attempts,
// the pool of numbers and the usage counters.
import { Elysia, t } from "elysia";
import { validateBody } from "../../http/validate.ts";
import type { GatewayContext } from "../context.ts";
import { messageDto, sendDto } from "../dto.ts";
import { captionLengthMax, fileNameLengthMax, mediaTypes, textLengthMax } from "../send-service.ts";
import { page, pageSizeMax } from "../../http/paging.ts";

const Id = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
/** The body's base64 of the largest media item, with room for the rest of the JSON. */
const dataBase64LengthMax = Math.ceil((16 * 1024 * 1024) / 3) * 4 + 4;
export const SendRequest = t.Object(
  {
    to: t.String({ minLength: 1, maxLength: 32 }),
    text: t.Optional(t.String({ maxLength: textLengthMax })),
    media: t.Optional(
      t.Object(
        {
          type: t.Union(mediaTypes.map((type) => t.Literal(type))),
          mimeType: t.String({ minLength: 3, maxLength: 127 }),
          dataBase64: t.String({ maxLength: dataBase64LengthMax }),
          fileName: t.Optional(t.String({ minLength: 1, maxLength: fileNameLengthMax })),
          caption: t.Optional(t.String({ maxLength: captionLengthMax })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
const MessageStates = ["queued", "sending", "sent", "delivered", "read", "failed", "cancelled"] as const;
export const MessagesQuery = t.Object(
  {
    limit: t.Optional(t.Integer({ minimum: 1, maximum: pageSizeMax })),
    cursor: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    state: t.Optional(t.Union(MessageStates.map((state) => t.Literal(state)))),
  },
  { additionalProperties: false },
);
export const SendsQuery = t.Object(
  {
    limit: t.Optional(t.Integer({ minimum: 1, maximum: pageSizeMax })),
    cursor: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    messageId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const projectMessageRoutes = (ctx: GatewayContext) =>
  new Elysia()
    // The body is parsed before derive runs: without this, a malformed body would be a 400 to anyone.
    .onParse(async ({ request }) => void (await ctx.auth.project(request.headers.get("apikey"))))
    .derive(async ({ request }) => ({ caller: await ctx.auth.project(request.headers.get("apikey")) }))
    .post("/v1/send", async ({ caller, body, request, set }) => {
      const input = validateBody<typeof SendRequest.static>(SendRequest, body);
      const { message, created } = await ctx.sends.send(caller.projectId, { ...input, to: input.to.trim() }, request.headers.get("idempotency-key"));
      set.status = 202;
      if (!created) set.headers["idempotent-replayed"] = "true";
      return messageDto(message);
    })
    .get(
      "/v1/messages",
      async ({ caller, query }) => {
        const { items, nextCursor } = await page(query, (limit, after) => ctx.messages.list(caller.projectId, query.state ?? null, limit, after));
        return { messages: items.map(messageDto), nextCursor };
      },
      { query: MessagesQuery },
    )
    .get("/v1/messages/:id", async ({ caller, params }) => messageDto(await ctx.sends.get(caller.projectId, params.id)), { params: Id })
    .post("/v1/messages/:id/cancel", async ({ caller, params }) => messageDto(await ctx.sends.cancel(caller.projectId, params.id)), { params: Id })
    .get(
      "/v1/sends",
      async ({ caller, query }) => {
        const { items, nextCursor } = await page(query, (limit, after) => ctx.messages.sends(caller.projectId, query.messageId ?? null, limit, after));
        return { sends: items.map(sendDto), nextCursor };
      },
      { query: SendsQuery },
    )
    .get("/v1/pool", async ({ caller }) => ctx.views.pool(caller.projectId))
    .get("/v1/usage", async ({ caller }) => ctx.views.usage(caller.projectId));
