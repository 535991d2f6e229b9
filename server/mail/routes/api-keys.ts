// A tenant's API keys (its full-access key): mint (shown once), list, revoke. As Resend names
// them: `full_access` or `sending_access`, the latter optionally for one domain.
import { Elysia, t } from "elysia";
import { validateBody } from "../../http/validate.ts";
import type { MailContext } from "../context.ts";
import { keyDto } from "../dto.ts";
import type { KeyPermission } from "../store/tenants.ts";
import { keyNameLengthMax } from "../tenants-service.ts";

const Id = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
export const MintKeyRequest = t.Object(
  {
    name: t.Optional(t.String({ maxLength: keyNameLengthMax })),
    permission: t.Optional(t.Union([t.Literal("full_access"), t.Literal("sending_access")])),
    domain_id: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const permissionOf = (permission: "full_access" | "sending_access" | undefined): KeyPermission => (permission === "sending_access" ? "sending" : "full");

export const apiKeyRoutes = (ctx: MailContext) =>
  new Elysia()
    .onParse(async ({ request }) => void (await ctx.auth.tenant(request, "full")))
    .derive(async ({ request }) => ({ caller: await ctx.auth.tenant(request, "full") }))
    .post("/v1/api-keys", async ({ caller, body, set }) => {
      const input = validateBody<typeof MintKeyRequest.static>(MintKeyRequest, body ?? {});
      const { key, token } = await ctx.tenants.mintKey(caller.tenantId, { name: input.name?.trim() || "default", permission: permissionOf(input.permission), domainId: input.domain_id ?? null });
      set.status = 201;
      return { ...keyDto(key), token };
    })
    .get("/v1/api-keys", async ({ caller }) => ({ data: (await ctx.tenants.keys(caller.tenantId)).map(keyDto) }))
    .delete("/v1/api-keys/:id", async ({ caller, params }) => keyDto(await ctx.tenants.revokeKey(caller.tenantId, params.id)), { params: Id });
