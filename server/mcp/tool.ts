// One MCP tool: its name, description, input schema (zod, bounded) and the scope it needs. The
// scope is checked on every call against the token's grant and the owner's current role
// (access.ts), and an operating error becomes a tool error the model can read: `isError` with
// the spec's error body, so a refusal names the missing scope.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ShapeOutput } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { z } from "zod";
import { ApiError, logInternalError } from "../http/errors.ts";
import { orgAccess, projectAccess, requireScope, type OrgAccess, type Principal, type ProjectAccess } from "../control/access.ts";
import type { ControlContext } from "../control/context.ts";
import { boundedJson } from "./bounded.ts";

/** Who is calling: one authenticated request to /mcp. */
export interface ToolSession {
  ctx: ControlContext;
  principal: Principal & { kind: "token" };
}

/** What a tool's code reaches the control plane through, with its scope checked first. */
export class ToolCall {
  constructor(
    readonly session: ToolSession,
    readonly scope: string,
  ) {}

  get ctx(): ControlContext {
    return this.session.ctx;
  }

  /** The project as the caller may see it (404 otherwise), holding the tool's scope (403 otherwise). */
  project(projectId: string): ProjectAccess {
    const access = projectAccess(this.ctx, this.session.principal, projectId);
    requireScope(access, this.scope);
    return access;
  }

  /** The token's organisation, holding the tool's scope. */
  org(): OrgAccess {
    const access = orgAccess(this.ctx, this.session.principal, this.session.principal.token.orgId);
    requireScope(access, this.scope);
    return access;
  }
}

export interface ToolSpec<Shape extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  scope: string;
  /** Changes something (create_insight); every other tool only reads. */
  writes?: true;
  input: Shape;
  run(call: ToolCall, args: ShapeOutput<Shape>): Promise<Record<string, unknown>> | Record<string, unknown>;
}

export interface McpTool {
  name: string;
  scope: string;
  register(server: McpServer, session: ToolSession): void;
}

const errorResult = (code: string, message: string): CallToolResult => ({
  isError: true,
  content: [{ type: "text", text: JSON.stringify({ error: { code, message } }) }],
});

export function defineTool<Shape extends z.ZodRawShape>(spec: ToolSpec<Shape>): McpTool {
  return {
    name: spec.name,
    scope: spec.scope,
    register(server, session) {
      const run = async (args: ShapeOutput<Shape>): Promise<CallToolResult> => {
        try {
          const answer = await spec.run(new ToolCall(session, spec.scope), args);
          return { content: [{ type: "text", text: boundedJson(answer) }] };
        } catch (error) {
          if (error instanceof ApiError) return errorResult(error.code, error.message);
          logInternalError(error);
          return errorResult("internal", "internal error");
        }
      };
      server.registerTool(
        spec.name,
        {
          title: spec.title,
          description: `${spec.description} Needs scope ${spec.scope}.`,
          inputSchema: spec.input,
          annotations: { title: spec.title, readOnlyHint: !spec.writes, destructiveHint: false, idempotentHint: !spec.writes, openWorldHint: false },
        },
        // The SDK types the callback as a conditional type TypeScript cannot resolve for a
        // generic Shape; for a raw shape it is exactly (args: ShapeOutput<Shape>) => result.
        run as never,
      );
    },
  };
}
