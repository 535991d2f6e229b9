// Registers plain handlers on an Elysia app with one explicit context type, so route files
// need no Elysia generics.
import type { Elysia } from "elysia";

export type AnyElysia = Elysia<any, any, any, any, any, any, any>;

export interface RouteContext {
  request: Request;
  body: unknown;
  params: Record<string, string>;
}

type Handler = (context: RouteContext) => Response | Promise<Response>;

export class RouteTable {
  constructor(readonly app: AnyElysia) {}

  private add(method: string, path: string, handler: Handler): this {
    this.app.route(method, path, handler as never);
    return this;
  }

  get = (path: string, handler: Handler) => this.add("GET", path, handler);
  post = (path: string, handler: Handler) => this.add("POST", path, handler);
  patch = (path: string, handler: Handler) => this.add("PATCH", path, handler);
  delete = (path: string, handler: Handler) => this.add("DELETE", path, handler);
}
