// A tenant's sending domains (its full-access key): add one (its DKIM key made, the records to
// publish answered), list, read, verify now, turn receiving on or off, delete.
import { Elysia, t } from "elysia";
import { validateBody } from "../../http/validate.ts";
import type { MailContext } from "../context.ts";
import { domainNameLengthMax } from "../domains/domains-service.ts";
import { domainDto } from "../dto.ts";
import type { MailDomain } from "../store/domains.ts";

const Id = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
const AddDomainRequest = t.Object({ name: t.String({ minLength: 1, maxLength: domainNameLengthMax }), receiving: t.Optional(t.Boolean()) }, { additionalProperties: false });
const UpdateDomainRequest = t.Object({ receiving: t.Boolean() }, { additionalProperties: false });

export const domainRoutes = (ctx: MailContext) => {
  const dto = (domain: MailDomain) => domainDto(domain, ctx.domains.records(domain));
  return new Elysia()
    .onParse(async ({ request }) => void (await ctx.auth.tenant(request, "full")))
    .derive(async ({ request }) => ({ caller: await ctx.auth.tenant(request, "full") }))
    .post("/v1/domains", async ({ caller, body, set }) => {
      const input = validateBody<typeof AddDomainRequest.static>(AddDomainRequest, body);
      set.status = 201;
      return dto(await ctx.domains.add(caller.tenantId, input.name, input.receiving ?? false));
    })
    .get("/v1/domains", async ({ caller }) => ({ data: (await ctx.domains.list(caller.tenantId)).map(dto) }))
    .get("/v1/domains/:id", async ({ caller, params }) => dto(await ctx.domains.get(caller.tenantId, params.id)), { params: Id })
    .post("/v1/domains/:id/verify", async ({ caller, params }) => dto((await ctx.domains.check(await ctx.domains.get(caller.tenantId, params.id))).domain), { params: Id })
    .patch(
      "/v1/domains/:id",
      async ({ caller, params, body }) => dto(await ctx.domains.setReceiving(caller.tenantId, params.id, validateBody<typeof UpdateDomainRequest.static>(UpdateDomainRequest, body).receiving)),
      { params: Id },
    )
    .delete(
      "/v1/domains/:id",
      async ({ caller, params }) => {
        await ctx.domains.remove(caller.tenantId, params.id);
        return { id: params.id, deleted: true };
      },
      { params: Id },
    );
};
