// The root key's project routes: create, list and read projects; mint, list and revoke keys;
// rotate the webhook secret; set the webhook URL; suspend and enable. Secrets (the webhook
// secret, a key) are in the answer that makes them and never again.
import { Elysia, t } from "elysia";
import { validateBody } from "../../http/validate.ts";
import type { GatewayContext } from "../context.ts";
import { keyDto, projectDto } from "../dto.ts";
import { keyNameLengthMax, projectNameLengthMax, webhookUrlLengthMax } from "../projects-service.ts";
import { PageQuery, page } from "../../http/paging.ts";

const Id = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
const WebhookUrl = t.Union([t.String({ minLength: 1, maxLength: webhookUrlLengthMax }), t.Null()]);
export const CreateProjectRequest = t.Object({ name: t.String({ minLength: 1, maxLength: projectNameLengthMax }), webhookUrl: t.Optional(WebhookUrl) }, { additionalProperties: false });
export const MintKeyRequest = t.Object({ name: t.Optional(t.String({ maxLength: keyNameLengthMax })) }, { additionalProperties: false });
export const SetWebhookRequest = t.Object({ url: WebhookUrl }, { additionalProperties: false });

export const rootProjectRoutes = (ctx: GatewayContext) =>
  new Elysia()
    // Before anything of the request is checked, so a caller without the key learns nothing from a 400.
    // The body is parsed before transform runs: without this, a malformed body would be a 400 to anyone.
    .onParse(async ({ request }) => void (await ctx.auth.root(request.headers.get("apikey"))))
    .onTransform(({ request }) => ctx.auth.root(request.headers.get("apikey")))
    .post(
      "/v1/projects",
      async ({ body, set }) => {
        const input = validateBody<typeof CreateProjectRequest.static>(CreateProjectRequest, body);
        const { project, webhookSecret } = await ctx.projects.create(input.name.trim(), input.webhookUrl ?? null);
        set.status = 201;
        return { project: projectDto(project), webhookSecret };
      },
    )
    .get(
      "/v1/projects",
      async ({ query }) => {
        const { items, nextCursor } = await page(query, (limit, after) => ctx.projects.list(limit, after));
        return { projects: items.map(projectDto), nextCursor };
      },
      { query: PageQuery },
    )
    .get("/v1/projects/:id", async ({ params }) => projectDto(await ctx.projects.get(params.id)), { params: Id })
    .post(
      "/v1/projects/:id/keys",
      async ({ params, body, set }) => {
        const input = validateBody<typeof MintKeyRequest.static>(MintKeyRequest, body ?? {});
        const { key, secret } = await ctx.projects.mintKey(params.id, input.name?.trim() || "default");
        set.status = 201;
        return { key: keyDto(key), secret };
      },
      { params: Id },
    )
    .get("/v1/projects/:id/keys", async ({ params }) => ({ keys: (await ctx.projects.keys(params.id)).map(keyDto) }), { params: Id })
    .post("/v1/projects/:id/keys/:keyId/revoke", async ({ params }) => keyDto(await ctx.projects.revokeKey(params.id, params.keyId)), {
      params: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }), keyId: t.String({ minLength: 1, maxLength: 64 }) }),
    })
    .post(
      "/v1/projects/:id/webhook/rotate",
      async ({ params }) => {
        const { project, webhookSecret } = await ctx.projects.rotateWebhookSecret(params.id);
        // Deliveries are signed with the new secret from now on: the receiver must verify with it.
        const mustReconnect = project.webhookUrl === null ? [] : [{ kind: "webhook", url: project.webhookUrl, action: "verify signatures with the new webhookSecret" }];
        return { project: projectDto(project), webhookSecret, mustReconnect };
      },
      { params: Id },
    )
    .put(
      "/v1/projects/:id/webhook",
      async ({ params, body }) => projectDto(await ctx.projects.setWebhookUrl(params.id, validateBody<typeof SetWebhookRequest.static>(SetWebhookRequest, body).url)),
      { params: Id },
    )
    .post("/v1/projects/:id/disable", async ({ params }) => projectDto(await ctx.projects.setSuspended(params.id, true)), { params: Id })
    .post("/v1/projects/:id/enable", async ({ params }) => projectDto(await ctx.projects.setSuspended(params.id, false)), { params: Id });
