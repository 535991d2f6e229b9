// The protected resources our tokens may be issued for (RFC 8707 `resource`): the /v1 API and
// the MCP server. A token names the ones it was asked for. The MCP server accepts only tokens
// issued for it; /v1, the authorization server's own API, accepts every OAuth token (spec 1).
import type { ControlContext } from "../context.ts";

export const v1Resource = (ctx: ControlContext): string => `${ctx.baseUrl()}/v1`;
export const mcpResource = (ctx: ControlContext): string => `${ctx.baseUrl()}/mcp`;

export const knownResources = (ctx: ControlContext): string[] => [v1Resource(ctx), mcpResource(ctx)];
