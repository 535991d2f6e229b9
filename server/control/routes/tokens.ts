// /app/tokens: personal access tokens. Console only: a token cannot create tokens.
import { t } from "elysia";
import { jsonResponse } from "../../http/errors.ts";
import { validateBody } from "../../http/validate.ts";
import type { ControlContext } from "../context.ts";
import { createAccessToken, listAccessTokens, revokeAccessToken } from "../services/access-tokens.ts";
import { pushRevocations } from "../services/token-revocations.ts";
import { CreatedTokenResponse, TokenList } from "../schemas-accounts.ts";
import type { ContractRouteTable } from "../contract/route-table.ts";
import { answer, errors } from "../contract/operation.ts";
import { requireSession } from "./session-auth.ts";

const CreateTokenRequest = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100 }),
    org_id: t.String({ description: "The organisation the token acts in" }),
    scopes: t.Array(t.String(), { description: "Held by the caller's role, no wildcard" }),
    project_ids: t.Optional(t.Union([t.Array(t.String()), t.Null()], { description: "Up to 100; omit for every project in the organisation" })),
    expires_in_days: t.Optional(t.Union([t.Integer(), t.Null()], { description: "1-365; omit for a token that never expires" })),
  },
  { title: "CreateTokenRequest", additionalProperties: false },
);

export function tokenRoutes(routes: ContractRouteTable, ctx: ControlContext) {
  return routes
    .get("/app/tokens", {
      operationId: "listTokens", summary: "The caller's personal access tokens", security: "session",
      responses: { ...answer(200, "Tokens", TokenList), ...errors(401) },
    }, (c) => jsonResponse(200, listAccessTokens(ctx, requireSession(ctx, c.request).user.id)))
    .post("/app/tokens", {
      operationId: "createToken", summary: "Create a personal access token; the secret is shown once", security: "session",
      body: CreateTokenRequest, responses: { ...answer(201, "Created", CreatedTokenResponse), ...errors(400, 401, 403, 404) },
    }, (c) => {
      const principal = requireSession(ctx, c.request);
      const input = validateBody<typeof CreateTokenRequest.static>(CreateTokenRequest, c.body);
      return jsonResponse(201, createAccessToken(ctx, principal, input));
    })
    .delete("/app/tokens/{token_id}", {
      operationId: "revokeToken", summary: "Revoke a personal access token and the region tokens issued with it", security: "session",
      responses: { ...answer(204, "Revoked"), ...errors(401, 404) },
    }, async (c) => {
      revokeAccessToken(ctx, requireSession(ctx, c.request), c.params.token_id!);
      await pushRevocations(ctx);
      return jsonResponse(204, undefined);
    });
}
