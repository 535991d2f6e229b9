// RFC 9728 protected-resource metadata of /mcp: where an MCP client learns which authorization
// server issues tokens for it and which scopes its tools check (MCP authorization spec).
import { jsonResponse } from "../http/errors.ts";
import type { ControlContext } from "../control/context.ts";
import { mcpResource } from "../control/oauth/resources.ts";
import { mcpToolScopes } from "./tools.ts";

export const mcpPath = "/mcp";
export const mcpResourceMetadataPath = "/.well-known/oauth-protected-resource/mcp";

export const mcpResourceMetadataUrl = (ctx: ControlContext) => `${ctx.baseUrl()}${mcpResourceMetadataPath}`;

export function mcpResourceMetadata(ctx: ControlContext) {
  return {
    resource: mcpResource(ctx),
    authorization_servers: [ctx.baseUrl()],
    scopes_supported: mcpToolScopes,
    bearer_methods_supported: ["header"],
    resource_name: "svc-analytics MCP server",
  };
}

export const mcpResourceMetadataResponse = (ctx: ControlContext, headers: Record<string, string>) =>
  jsonResponse(200, mcpResourceMetadata(ctx), { "Cache-Control": "public, max-age=300", ...headers });
