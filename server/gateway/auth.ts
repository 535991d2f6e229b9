// Who is calling: the `apikey` header as the root key, a live project key, or nobody. Every
// refusal is the same 401 (missing, unknown, revoked, or a suspended project's key), and the
// work done is the same for each (a hash and one indexed lookup), so neither the body nor the
// time tells them apart.
import { ApiError, unavailable } from "../http/errors.ts";

const storeDown = Symbol("store down");
import { keyHash, sameHash } from "../service-keys.ts";
import type { ProjectStore } from "./store/projects.ts";

export type Caller = { kind: "root" } | { kind: "project"; projectId: string; keyId: string };

export const gatewayUnauthorized = () => new ApiError(401, "unauthorized", "missing or invalid API key (send it in the apikey header)");

export class GatewayAuth {
  constructor(
    private readonly rootKeyHash: string,
    private readonly projects: ProjectStore,
  ) {}

  async caller(apikey: string | null): Promise<Caller | null> {
    const hash = keyHash(apikey ?? "");
    const root = sameHash(hash, this.rootKeyHash);
    // Looked up even for the root key and a missing header, so each answer costs the same.
    const key = await this.projects.activeKey(hash).catch(() => storeDown);
    // The root key does not need the store: an operator can still read the alerts while it is down.
    if (root) return { kind: "root" };
    if (typeof key === "symbol") throw unavailable("the gateway's store does not answer");
    return key ? { kind: "project", ...key } : null;
  }

  async root(apikey: string | null): Promise<void> {
    if ((await this.caller(apikey))?.kind !== "root") throw gatewayUnauthorized();
  }

  async project(apikey: string | null): Promise<{ projectId: string; keyId: string }> {
    const caller = await this.caller(apikey);
    if (caller?.kind !== "project") throw gatewayUnauthorized();
    return caller;
  }
}
