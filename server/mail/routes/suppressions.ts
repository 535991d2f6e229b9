// The tenant's suppression list (full-access key): addresses bounced hard or complained about
// are added automatically; the tenant can add and remove addresses too.
import { Elysia, t } from "elysia";
import { page, pageSizeMax } from "../../http/paging.ts";
import { addressLengthMax } from "../compose/addresses.ts";
import { validateBody } from "../../http/validate.ts";
import type { MailContext } from "../context.ts";
import { suppressionDto } from "../email-dto.ts";
import { suppressionDetailLengthMax } from "../sending/suppressions-service.ts";

const Address = t.Object({ address: t.String({ minLength: 3, maxLength: 254 }) });
// The cursor is the last address of the previous page: up to 254 characters, not an id.
const ListQuery = t.Object(
  {
    limit: t.Optional(t.Integer({ minimum: 1, maximum: pageSizeMax })),
    cursor: t.Optional(t.String({ minLength: 1, maxLength: addressLengthMax })),
    reason: t.Optional(t.Union([t.Literal("hard_bounce"), t.Literal("complaint"), t.Literal("manual")])),
  },
  { additionalProperties: false },
);
const AddRequest = t.Object({ address: t.String({ minLength: 1, maxLength: 600 }), detail: t.Optional(t.String({ maxLength: suppressionDetailLengthMax })) }, { additionalProperties: false });

export const suppressionRoutes = (ctx: MailContext) =>
  new Elysia()
    .onParse(async ({ request }) => void (await ctx.auth.tenant(request, "full")))
    .derive(async ({ request }) => ({ caller: await ctx.auth.tenant(request, "full") }))
    .get(
      "/v1/suppressions",
      async ({ caller, query }) => {
        const { items, nextCursor } = await page(query, async (limit, after) =>
          (await ctx.suppressions.list(caller.tenantId, query.reason ?? null, limit, after)).map((entry) => ({ ...entry, id: entry.address })),
        );
        return { data: items.map(suppressionDto), next_cursor: nextCursor };
      },
      { query: ListQuery },
    )
    // Elysia hands path parameters over decoded (an address is sent URL-encoded: %40, %2B, %25)
    .get("/v1/suppressions/:address", async ({ caller, params }) => suppressionDto(await ctx.suppressions.get(caller.tenantId, params.address)), { params: Address })
    .post("/v1/suppressions", async ({ caller, body, set }) => {
      const input = validateBody<typeof AddRequest.static>(AddRequest, body);
      set.status = 201;
      return suppressionDto(await ctx.suppressions.add(caller.tenantId, input.address, input.detail?.trim() || null));
    })
    .delete(
      "/v1/suppressions/:address",
      async ({ caller, params }) => {
        await ctx.suppressions.remove(caller.tenantId, params.address);
        return { address: params.address.toLowerCase(), deleted: true };
      },
      { params: Address },
    );
