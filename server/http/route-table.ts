// The one context type plain route handlers take, so route files need no Elysia generics
// (the control plane mounts them through server/control/contract/route-table.ts).
import type { Elysia } from "elysia";

export type AnyElysia = Elysia<any, any, any, any, any, any, any>;

export interface RouteContext {
  request: Request;
  body: unknown;
  params: Record<string, string>;
}
