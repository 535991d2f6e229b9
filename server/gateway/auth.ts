// Who is calling: the `apikey` header as the root key, a live project key, or nobody. Every
// refusal is the same 401 (missing, unknown, revoked, or a suspended project's key), and the
// work done is the same for each (a hash and one indexed lookup), so neither the body nor the
// time tells them apart.
import { ApiError } from "../http/errors.ts";
import { identifyKey } from "../service-keys.ts";
import type { ProjectStore } from "./store/projects.ts";

export type Caller = { kind: "root" } | { kind: "project"; projectId: string; keyId: string };

export const gatewayUnauthorized = () => new ApiError(401, "unauthorized", "missing or invalid API key (send it in the apikey header)");

export class GatewayAuth {
  constructor(
    private readonly rootKeyHash: string,
    private readonly projects: ProjectStore,
  ) {}

  async caller(apikey: string | null): Promise<Caller | null> {
    const found = await identifyKey(apikey ?? "", this.rootKeyHash, (hash) => this.projects.activeKey(hash), "the gateway's store does not answer");
    if (found?.kind === "key") return { kind: "project", ...found.key };
    return found;
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
