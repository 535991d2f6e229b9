// A tenant's sending domains: added with a fresh DKIM key and the records to publish, checked
// against DNS (on demand and on a schedule), `pending` until every required record is found,
// `verified` then, and `failed` when a verified domain loses a record or a pending one is not
// set up within the verification window. Only a verified domain sends. Each transition is a
// `domain.verified` or `domain.failed` event (for webhooks), whoever asked for the check.
import { ApiError, conflict, notFound, validation } from "../../http/errors.ts";
import type { promises as dns } from "node:dns";
import { recordDto } from "../dto.ts";
import type { DomainStatus, DomainStore, MailDomain } from "../store/domains.ts";
import type { EventStore } from "../store/events.ts";
import { newDkimKeyPair, newDkimSelector } from "./dkim-key.ts";
import { checkRecord, expectedRecords, type RecordCheck } from "./records.ts";

/** A domain whose records are not found within this long after it was added fails (checks go on: it can still verify). */
export const domainVerifyWindowMs = 72 * 3_600_000;
export const domainNameLengthMax = 253;
const domainNamePattern = /^(?=.{1,253}$)(?!-)([a-z0-9-]{1,63}(?<!-)\.)+[a-z]{2,63}$/;

export type DomainTransition = "domain.verified" | "domain.failed" | null;

/** Lower-case ASCII (an IDN as punycode), without a trailing dot; a 400 for anything that is not a host name. */
export function normaliseDomainName(raw: string): string {
  const name = raw.trim().toLowerCase().replace(/\.$/, "");
  const refuse = () => validation(`name: "${raw.slice(0, 60)}" is not a domain name (e.g. mail.example.com)`);
  if (/[\s/?#@:[\]\\%]/.test(name)) throw refuse();
  let ascii: string;
  try {
    ascii = new URL(`http://${name}`).hostname;
  } catch {
    throw refuse();
  }
  if (!domainNamePattern.test(ascii)) throw refuse();
  return ascii;
}

export class DomainsService {
  constructor(
    private readonly domains: DomainStore,
    /** A fresh resolver per check: a resolver caches answers, missing ones too, and a check must see what DNS says now. */
    private readonly newResolver: () => dns.Resolver,
    private readonly mailHostname: string,
    private readonly now: () => number,
    private readonly events: EventStore,
  ) {}

  async add(tenantId: string, rawName: string, receiving: boolean): Promise<MailDomain> {
    const name = normaliseDomainName(rawName);
    if (await this.domains.named(tenantId, name)) throw conflict(`${name} is already one of your domains`);
    if (await this.domains.verifiedElsewhere(tenantId, name)) throw conflict(`${name} is verified by another account; a domain sends for one account only`);
    const keys = await newDkimKeyPair();
    return this.domains.create({ id: Bun.randomUUIDv7(), tenantId, name, dkimSelector: newDkimSelector(this.now()), dkimPrivateKey: keys.privateKeyPem, dkimPublicKey: keys.publicKeyBase64, receiving, now: this.now() });
  }

  async get(tenantId: string, id: string): Promise<MailDomain> {
    const domain = await this.domains.ofTenant(tenantId, id);
    if (!domain) throw notFound("domain");
    return domain;
  }

  list = (tenantId: string) => this.domains.list(tenantId);

  records(domain: MailDomain): RecordCheck[] {
    const expected = expectedRecords(domain, this.mailHostname);
    // Before the first check every record is shown as not yet found.
    return expected.map((record) => domain.recordChecks?.find((check) => check.record === record.record && check.name === record.name && check.value === record.value) ?? { ...record, status: "not_found", found: [] });
  }

  /** Checks every record now and moves the status; says which transition happened, if any. */
  async check(domain: MailDomain): Promise<{ domain: MailDomain; transition: DomainTransition }> {
    const resolver = this.newResolver();
    const checks = await Promise.all(expectedRecords(domain, this.mailHostname).map((record) => checkRecord(resolver, record)));
    const required = checks.filter((check) => check.required);
    const now = this.now();
    let status: DomainStatus = domain.status;
    let failure: string | null = null;
    if (required.every((check) => check.status === "verified")) status = "verified";
    else if (required.some((check) => check.status === "temporary_error")) failure = "DNS did not answer for every record; the status stays as it was until it does";
    else {
      const missing = required.filter((check) => check.status !== "verified").map((check) => `${check.record} (${check.name}: ${check.status})`);
      failure = `not found as published: ${missing.join(", ")}`;
      if (domain.status === "verified" || now - domain.createdAt >= domainVerifyWindowMs) status = "failed";
    }
    const updated = (await this.domains.recordCheck(domain.id, { status, recordChecks: checks, failure, verifiedAt: status === "verified" ? (domain.verifiedAt ?? now) : domain.verifiedAt }, now)) ?? domain;
    const transition: DomainTransition = status === domain.status ? null : status === "verified" ? "domain.verified" : status === "failed" ? "domain.failed" : null;
    if (transition) {
      const data = { id: updated.id, name: updated.name, status: updated.status, records: this.records(updated).map(recordDto) };
      await this.events.emit([{ tenantId: updated.tenantId, type: transition, domainId: updated.id, data }], now);
    }
    return { domain: updated, transition };
  }

  async setReceiving(tenantId: string, id: string, receiving: boolean): Promise<MailDomain> {
    const domain = await this.domains.setReceiving(tenantId, id, receiving);
    if (!domain) throw notFound("domain");
    return domain;
  }

  async remove(tenantId: string, id: string): Promise<void> {
    if (!(await this.domains.remove(tenantId, id, this.now()))) throw notFound("domain");
  }

  /** The tenant's verified domain named `name`, else a 403 saying why sending from it is refused. */
  async sendableFrom(tenantId: string, name: string): Promise<MailDomain> {
    const domain = await this.domains.named(tenantId, name.toLowerCase());
    if (!domain) throw new ApiError(403, "domain_not_added", `${name} is not one of your domains: add it (POST /v1/domains) and publish its records`);
    if (domain.status !== "verified") throw new ApiError(403, "domain_not_verified", `${name} is ${domain.status}: publish its DNS records and verify it (POST /v1/domains/${domain.id}/verify) before sending from it`);
    return domain;
  }
}
