// Mounts control-plane routes with their declarations (operation.ts) and keeps the list that
// /openapi.json is generated from.
import type { AnyElysia, RouteContext } from "../../http/route-table.ts";
import type { ContractOperation, HttpMethod, OperationDoc } from "./operation.ts";

type Handler = (context: RouteContext) => Response | Promise<Response>;

/** /v1/projects/{project_id} -> /v1/projects/:project_id */
export const elysiaPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");

export class ContractRouteTable {
  /** Every route mounted through this table, in mounting order. */
  readonly operations: ContractOperation[] = [];

  constructor(readonly app: AnyElysia) {}

  add(method: HttpMethod, path: string, doc: OperationDoc, handler: Handler): this {
    this.operations.push({ method, path, ...doc });
    this.app.route(method, elysiaPath(path), handler as never);
    return this;
  }

  get = (path: string, doc: OperationDoc, handler: Handler) => this.add("GET", path, doc, handler);
  post = (path: string, doc: OperationDoc, handler: Handler) => this.add("POST", path, doc, handler);
  patch = (path: string, doc: OperationDoc, handler: Handler) => this.add("PATCH", path, doc, handler);
  delete = (path: string, doc: OperationDoc, handler: Handler) => this.add("DELETE", path, doc, handler);
}
