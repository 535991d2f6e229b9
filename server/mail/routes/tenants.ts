// The operator's routes (root key): tenants, each made with a first full-access key (shown
// once), keys minted for a tenant, and its plan.
import { Elysia, t } from "elysia";
import { validation } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import { PageQuery, page } from "../../http/paging.ts";
import type { MailContext } from "../context.ts";
import { keyDto, tenantDto } from "../dto.ts";
import { isPlanName, planNames } from "../plans/plans.ts";
import { tenantNameLengthMax } from "../tenants-service.ts";
import { MintKeyRequest, permissionOf } from "./api-keys.ts";

const Id = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
const CreateTenantRequest = t.Object({ name: t.String({ minLength: 1, maxLength: tenantNameLengthMax }) }, { additionalProperties: false });
const UpdateTenantRequest = t.Object({ plan: t.String({ maxLength: 32 }) }, { additionalProperties: false });

export const tenantRoutes = (ctx: MailContext) =>
  new Elysia()
    // Before the body is parsed or anything of the request checked, so a caller without the key learns nothing from a 400.
    .onParse(async ({ request }) => void (await ctx.auth.root(request)))
    .onTransform(({ request }) => ctx.auth.root(request))
    .post("/v1/tenants", async ({ body, set }) => {
      const input = validateBody<typeof CreateTenantRequest.static>(CreateTenantRequest, body);
      const { tenant, key, token } = await ctx.tenants.create(input.name.trim());
      set.status = 201;
      return { tenant: tenantDto(tenant), api_key: { ...keyDto(key), token } };
    })
    .get(
      "/v1/tenants",
      async ({ query }) => {
        const { items, nextCursor } = await page(query, (limit, after) => ctx.tenants.list(limit, after));
        return { data: items.map(tenantDto), next_cursor: nextCursor };
      },
      { query: PageQuery },
    )
    .get("/v1/tenants/:id", async ({ params }) => tenantDto(await ctx.tenants.get(params.id)), { params: Id })
    .patch(
      "/v1/tenants/:id",
      async ({ params, body }) => {
        const { plan } = validateBody<typeof UpdateTenantRequest.static>(UpdateTenantRequest, body);
        if (!isPlanName(plan)) throw validation(`plan: one of ${planNames.join(", ")}`);
        return tenantDto(await ctx.tenants.setPlan(params.id, plan));
      },
      { params: Id },
    )
    .post(
      "/v1/tenants/:id/api-keys",
      async ({ params, body, set }) => {
        await ctx.tenants.get(params.id);
        const input = validateBody<typeof MintKeyRequest.static>(MintKeyRequest, body ?? {});
        const { key, token } = await ctx.tenants.mintKey(params.id, { name: input.name?.trim() || "default", permission: permissionOf(input.permission), domainId: input.domain_id ?? null });
        set.status = 201;
        return { ...keyDto(key), token };
      },
      { params: Id },
    );
