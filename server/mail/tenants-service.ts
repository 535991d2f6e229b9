// Tenants (made by the operator's root key, each with a first full-access key) and their API
// keys (made by the root key or the tenant's full-access key): shown once, stored hashed,
// revocable. Another tenant's key or domain is 404.
import { notFound, validation } from "../http/errors.ts";
import { randomBase62 } from "../crypto.ts";
import { keyHash, serviceKeyRandomLength } from "../service-keys.ts";
import type { PlanName } from "./plans/plans.ts";
import type { DomainStore } from "./store/domains.ts";
import type { KeyPermission, MailKey, MailTenant, TenantStore } from "./store/tenants.ts";

export const mailKeyPrefix = "mk_live_";
export const mailRootKeyPrefix = "mk_root_";
export const tenantNameLengthMax = 200;
export const keyNameLengthMax = 200;

export class TenantsService {
  constructor(
    private readonly tenants: TenantStore,
    private readonly domains: DomainStore,
    private readonly now: () => number,
  ) {}

  async create(name: string): Promise<{ tenant: MailTenant; key: MailKey; token: string }> {
    const tenant = await this.tenants.create(Bun.randomUUIDv7(), name, this.now());
    const { key, token } = await this.mintKey(tenant.id, { name: "default", permission: "full", domainId: null });
    return { tenant, key, token };
  }

  async get(id: string): Promise<MailTenant> {
    const tenant = await this.tenants.get(id);
    if (!tenant) throw notFound("tenant");
    return tenant;
  }

  async setPlan(id: string, plan: PlanName): Promise<MailTenant> {
    const tenant = await this.tenants.setPlan(id, plan);
    if (!tenant) throw notFound("tenant");
    return tenant;
  }

  list = (limit: number, after: string | null) => this.tenants.list(limit, after);

  async mintKey(tenantId: string, input: { name: string; permission: KeyPermission; domainId: string | null }): Promise<{ key: MailKey; token: string }> {
    if (input.domainId !== null) {
      if (input.permission !== "sending") throw validation("domain_id: only a sending_access key is restricted to a domain");
      if (!(await this.domains.ofTenant(tenantId, input.domainId))) throw notFound("domain");
    }
    const token = `${mailKeyPrefix}${randomBase62(serviceKeyRandomLength)}`;
    const key = await this.tenants.addKey({ id: Bun.randomUUIDv7(), tenantId, name: input.name, permission: input.permission, domainId: input.domainId, last4: token.slice(-4), secretHash: keyHash(token), now: this.now() });
    return { key, token };
  }

  keys = (tenantId: string) => this.tenants.keys(tenantId);

  async revokeKey(tenantId: string, id: string): Promise<MailKey> {
    const key = await this.tenants.revokeKey(tenantId, id, this.now());
    if (!key) throw notFound("api key");
    return key;
  }
}
