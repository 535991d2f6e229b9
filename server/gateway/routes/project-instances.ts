// A project's numbers: register, list, read (the registry view), QR state (JSON, or the code
// as PNG or SVG), connect (409 when connected), retire (history kept) and log out. A request
// about a number another replica holds is answered by that replica.
import { Elysia, t } from "elysia";
import { ApiError } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { GatewayContext } from "../context.ts";
import { instanceDto, qrDto } from "../dto.ts";
import { HeldElsewhere, instanceLabelLengthMax } from "../instances-service.ts";
import { qrPng, qrSvg } from "../network/qr-image.ts";
import { forwardToOwner } from "./forward.ts";
import { PageQuery, page } from "../../http/paging.ts";

const Id = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
export const RegisterRequest = t.Object({ phone: t.String({ minLength: 1, maxLength: 32 }), label: t.Optional(t.String({ minLength: 1, maxLength: instanceLabelLengthMax })) }, { additionalProperties: false });
export const QrQuery = t.Object({ format: t.Optional(t.Union([t.Literal("json"), t.Literal("png"), t.Literal("svg")])) }, { additionalProperties: false });

export const projectInstanceRoutes = (ctx: GatewayContext) =>
  new Elysia()
    // The body is parsed before derive runs: without this, a malformed body would be a 400 to anyone.
    .onParse(async ({ request }) => void (await ctx.auth.project(request.headers.get("apikey"))))
    .derive(async ({ request }) => ({ caller: await ctx.auth.project(request.headers.get("apikey")) }))
    .post("/v1/instances", async ({ caller, body, set }) => {
      const input = validateBody<typeof RegisterRequest.static>(RegisterRequest, body);
      set.status = 201;
      return instanceDto(await ctx.instances.register(caller.projectId, caller.keyId, input.phone.trim(), input.label?.trim() || null));
    })
    .get(
      "/v1/instances",
      async ({ caller, query }) => {
        const { items, nextCursor } = await page(query, (limit, after) => ctx.instanceStore.list(caller.projectId, limit, after));
        return { instances: items.map(instanceDto), nextCursor };
      },
      { query: PageQuery },
    )
    .get("/v1/instances/:id/number", async ({ caller, params }) => instanceDto(await ctx.instances.get(caller.projectId, params.id)), { params: Id })
    .get(
      "/v1/instances/:id/qr",
      async ({ caller, params, query, request }) => {
        const instance = await ctx.instances.get(caller.projectId, params.id);
        const forwarded = await forwardToOwner(ctx, instance, request);
        if (forwarded) return forwarded;
        const state = ctx.instances.qr(instance);
        const format = query.format ?? "json";
        if (format === "json") return qrDto(state);
        if (state.status !== "code") throw new ApiError(409, "no_code", `the instance is ${state.status}: there is no pairing code to draw${state.status === "pending" ? " (POST connect first)" : ""}`);
        const image = format === "png" ? await qrPng(state.code) : await qrSvg(state.code);
        return new Response(image, { headers: { "content-type": format === "png" ? "image/png" : "image/svg+xml", "cache-control": "no-store" } });
      },
      { params: Id, query: QrQuery },
    )
    .post(
      "/v1/instances/:id/connect",
      async ({ caller, params, request }) => {
        const instance = await ctx.instances.get(caller.projectId, params.id);
        const forwarded = await forwardToOwner(ctx, instance, request);
        if (forwarded) return forwarded;
        try {
          const connected = await ctx.instances.connect(instance, caller.keyId);
          return { instance: instanceDto(connected), qr: qrDto(ctx.instances.qr(connected)) };
        } catch (error) {
          if (!(error instanceof HeldElsewhere)) throw error;
          return (await forwardToOwner(ctx, await ctx.instances.get(caller.projectId, params.id), request)) ?? Promise.reject(error);
        }
      },
      { params: Id },
    )
    .post(
      "/v1/instances/:id/retire",
      async ({ caller, params, request }) => {
        const instance = await ctx.instances.get(caller.projectId, params.id);
        return (await forwardToOwner(ctx, instance, request)) ?? instanceDto(await ctx.instances.retire(instance, `key:${caller.keyId}`));
      },
      { params: Id },
    )
    .post(
      "/v1/instances/:id/logout",
      async ({ caller, params, request }) => {
        const instance = await ctx.instances.get(caller.projectId, params.id);
        return (await forwardToOwner(ctx, instance, request)) ?? instanceDto(await ctx.instances.logout(instance, caller.keyId));
      },
      { params: Id },
    );
