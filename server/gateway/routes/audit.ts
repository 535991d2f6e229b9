// Audit trails: a project's own (its key; operators' actions on it included) and the
// deployment's across projects (the root key).
import { Elysia } from "elysia";
import type { GatewayContext } from "../context.ts";
import { auditDto } from "../dto.ts";
import { PageQuery, page } from "./paging.ts";

export const projectAuditRoutes = (ctx: GatewayContext) =>
  new Elysia().get(
    "/v1/audit",
    async ({ request, query }) => {
      const { projectId } = await ctx.auth.project(request.headers.get("apikey"));
      const { items, nextCursor } = await page(query, (limit, before) => ctx.audit.list(projectId, limit, before));
      return { entries: items.map(auditDto), nextCursor };
    },
    { query: PageQuery },
  );

export const adminAuditRoutes = (ctx: GatewayContext) =>
  new Elysia().get(
    "/v1/admin/audit",
    async ({ request, query }) => {
      await ctx.auth.root(request.headers.get("apikey"));
      const { items, nextCursor } = await page(query, (limit, before) => ctx.audit.list(null, limit, before));
      return { entries: items.map(auditDto), nextCursor };
    },
    { query: PageQuery },
  );
