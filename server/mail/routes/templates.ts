// A tenant's stored templates (its full-access key): create, list, read, change, delete. The id
// is the tenant's own alias, the `template.id` a send request names. The body's shape is checked
// here (400 `validation`); its content by the send's own rules in templates-service.ts (422, or
// 413 for html or text over the send's bounds, with the send's codes).
import { Elysia, t } from "elysia";
import { PageQuery, page } from "../../http/paging.ts";
import { validateBody } from "../../http/validate.ts";
import { templateIdLengthMax } from "../compose/template.ts";
import type { MailContext } from "../context.ts";
import { templateDto, templateSummaryDto } from "../dto.ts";
import { templateNameLengthMax } from "../templates-service.ts";

const Id = t.Object({ id: t.String({ minLength: 1, maxLength: templateIdLengthMax }) });
// The cursor is a template id, which may be longer than the shared query allows.
const TemplatePageQuery = t.Object(
  { limit: PageQuery.properties.limit, cursor: t.Optional(t.String({ minLength: 1, maxLength: templateIdLengthMax })) },
  { additionalProperties: false },
);
const contentFields = {
  name: t.Optional(t.String({ minLength: 1, maxLength: templateNameLengthMax })),
  subject: t.Optional(t.Union([t.String(), t.Null()])),
  html: t.Optional(t.Union([t.String(), t.Null()])),
  text: t.Optional(t.Union([t.String(), t.Null()])),
};
const CreateTemplateRequest = t.Object({ id: t.String(), ...contentFields }, { additionalProperties: false });
const UpdateTemplateRequest = t.Object(contentFields, { additionalProperties: false });

export const templateRoutes = (ctx: MailContext) =>
  new Elysia()
    .onParse(async ({ request }) => void (await ctx.auth.tenant(request, "full")))
    .derive(async ({ request }) => ({ caller: await ctx.auth.tenant(request, "full") }))
    .post("/v1/templates", async ({ caller, body, set }) => {
      const input = validateBody<typeof CreateTemplateRequest.static>(CreateTemplateRequest, body);
      const template = await ctx.templates.create(caller.tenantId, input);
      set.status = 201;
      return templateDto(template);
    })
    .get(
      "/v1/templates",
      async ({ caller, query }) => {
        const { items, nextCursor } = await page(query, (limit, after) => ctx.templates.list(caller.tenantId, limit, after));
        return { data: items.map(templateSummaryDto), next_cursor: nextCursor };
      },
      { query: TemplatePageQuery },
    )
    .get("/v1/templates/:id", async ({ caller, params }) => templateDto(await ctx.templates.get(caller.tenantId, params.id)), { params: Id })
    .patch(
      "/v1/templates/:id",
      async ({ caller, params, body }) =>
        templateDto(await ctx.templates.update(caller.tenantId, params.id, validateBody<typeof UpdateTemplateRequest.static>(UpdateTemplateRequest, body))),
      { params: Id },
    )
    .delete(
      "/v1/templates/:id",
      async ({ caller, params }) => {
        await ctx.templates.remove(caller.tenantId, params.id);
        return { id: params.id, deleted: true };
      },
      { params: Id },
    );
