import { RouteTable, type AnyElysia, type RouteContext as Ctx } from "../../http/route-table.ts";
// /app/tokens: personal access tokens. Console only: a token cannot create tokens.
import { t } from "elysia";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import { createAccessToken, listAccessTokens, revokeAccessToken } from "../services/access-tokens.ts";
import { pushRevocations } from "../services/token-revocations.ts";
import { requireSession } from "./session-auth.ts";

const CreateTokenRequest = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100 }),
    org_id: t.String(),
    scopes: t.Array(t.String()),
    project_ids: t.Optional(t.Union([t.Array(t.String()), t.Null()])),
    expires_in_days: t.Optional(t.Union([t.Integer(), t.Null()])),
  },
  { additionalProperties: false },
);


export function tokenRoutes(app: AnyElysia, ctx: ControlContext) {
  return new RouteTable(app)
    .get("/app/tokens", (c: Ctx) => jsonResponse(200, listAccessTokens(ctx, requireSession(ctx, c.request).user.id)))
    .post("/app/tokens", (c: Ctx) => {
      const principal = requireSession(ctx, c.request);
      const input = validateBody<typeof CreateTokenRequest.static>(CreateTokenRequest, c.body);
      return jsonResponse(201, createAccessToken(ctx, principal, input));
    })
    .delete("/app/tokens/:token_id", async (c: Ctx) => {
      revokeAccessToken(ctx, requireSession(ctx, c.request), c.params.token_id!);
      await pushRevocations(ctx);
      return jsonResponse(204, undefined);
    });
}
