// A tenant's inbound mail (its full-access key): list (newest first, filtered by envelope
// recipient, From address and time), read one with its bodies, and download the message as it
// arrived. Another tenant's message is a 404.
import { Elysia, t } from "elysia";
import { ApiError, notFound } from "../../http/errors.ts";
import { page, pageSizeMax } from "../../http/paging.ts";
import type { MailContext } from "../context.ts";
import { inboundDto, inboundSummaryDto } from "../inbound/dto.ts";
import type { Inbound } from "../inbound/inbound.ts";

const Id = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
const addressFilterCharsMax = 254;
const InboundQuery = t.Object(
  {
    limit: t.Optional(t.Integer({ minimum: 1, maximum: pageSizeMax })),
    cursor: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    to: t.Optional(t.String({ minLength: 1, maxLength: addressFilterCharsMax })),
    from: t.Optional(t.String({ minLength: 1, maxLength: addressFilterCharsMax })),
    after: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    before: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

const instant = (value: string | undefined, name: string) => {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new ApiError(400, "validation", `${name} must be an RFC 3339 date-time`);
  return ms;
};

export const inboundRoutes = (ctx: MailContext, inbound: Inbound) =>
  new Elysia()
    .derive(async ({ request }) => ({ caller: await ctx.auth.tenant(request, "full") }))
    .get(
      "/v1/inbound",
      async ({ caller, query }) => {
        const filter = { to: query.to, from: query.from, after: instant(query.after, "after"), before: instant(query.before, "before") };
        const { items, nextCursor } = await page(query, (limit, after) => inbound.store.list(caller.tenantId, filter, limit, after));
        return { data: items.map((message) => inboundSummaryDto(message, inbound.rawUrl(message.id))), next_cursor: nextCursor };
      },
      { query: InboundQuery },
    )
    .get(
      "/v1/inbound/:id",
      async ({ caller, params }) => {
        const message = await inbound.store.get(caller.tenantId, params.id);
        if (!message) throw notFound("inbound message");
        return inboundDto(message, inbound.rawUrl(message.id));
      },
      { params: Id },
    )
    .get(
      "/v1/inbound/:id/raw",
      async ({ caller, params }) => {
        const raw = await inbound.store.raw(caller.tenantId, params.id);
        if (!raw) throw notFound("inbound message");
        return new Response(raw, {
          headers: { "content-type": "message/rfc822", "content-disposition": `attachment; filename="${params.id.replace(/[^A-Za-z0-9_]/g, "")}.eml"`, "x-content-type-options": "nosniff" },
        });
      },
      { params: Id },
    );
