// The protected resources our tokens may be issued for (RFC 8707 `resource`): the /v1 API and
// the MCP server. A token names the ones it was asked for; each resource server accepts only
// tokens issued for it, so a token handed to one cannot be replayed at the other.
import type { ControlContext } from "../context.ts";

export const v1Resource = (ctx: ControlContext): string => `${ctx.baseUrl()}/v1`;
export const mcpResource = (ctx: ControlContext): string => `${ctx.baseUrl()}/mcp`;

export const knownResources = (ctx: ControlContext): string[] => [v1Resource(ctx), mcpResource(ctx)];
