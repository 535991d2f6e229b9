// Audit trails: a project's own (its key; operators' actions on it included) and the
// deployment's across projects (the root key).
import { Elysia } from "elysia";
import type { GatewayContext } from "../context.ts";
import { auditDto } from "../dto.ts";
import { PageQuery, page } from "../../http/paging.ts";

// The key is checked before the query, so a caller without one learns nothing from a 400.
export const projectAuditRoutes = (ctx: GatewayContext) =>
  new Elysia().derive(async ({ request }) => ({ caller: await ctx.auth.project(request.headers.get("apikey")) })).get(
    "/v1/audit",
    async ({ caller: { projectId }, query }) => {
      const { items, nextCursor } = await page(query, (limit, before) => ctx.audit.list(projectId, limit, before));
      return { entries: items.map(auditDto), nextCursor };
    },
    { query: PageQuery },
  );

export const adminAuditRoutes = (ctx: GatewayContext) =>
  new Elysia().onTransform(({ request }) => ctx.auth.root(request.headers.get("apikey"))).get(
    "/v1/admin/audit",
    async ({ query }) => {
      const { items, nextCursor } = await page(query, (limit, before) => ctx.audit.list(null, limit, before));
      return { entries: items.map(auditDto), nextCursor };
    },
    { query: PageQuery },
  );
