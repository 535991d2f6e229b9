// Where mail for a domain goes (RFC 5321 section 5.1): its MX hosts by preference, or the
// domain itself when it has no MX, or nowhere when it publishes a null MX (RFC 7505).
import { promises as dns } from "node:dns";

/** MX hosts whose addresses are looked up and tried, in preference order; the rest are ignored. */
export const mxHostsTriedMax = 5;
/** Each DNS question gets this long, whatever the resolver's own retries do. */
export const dnsLookupTimeoutMs = 10_000;

/** The part of `dns.promises.Resolver` the lookup needs; a configured Resolver is one. */
export interface MailDnsResolver {
  resolveMx(hostName: string): Promise<{ exchange: string; priority: number }[]>;
  resolve4(hostName: string): Promise<string[]>;
  resolve6(hostName: string): Promise<string[]>;
}

export type MailHost = {
  hostName: string;
  preference: number;
  addresses: string[];
  /** True when the domain has no MX and its own A/AAAA records stand in for one. */
  implicit: boolean;
};

export type MailHostLookupFailure =
  /** The domain published "MX 0 ." (RFC 7505): it accepts no mail. Permanent. */
  | "null_mx"
  /** The domain does not exist (NXDOMAIN), or has neither MX nor address records. Permanent. */
  | "domain_not_found"
  /** Its MX hosts have no addresses. Permanent. */
  | "mx_hosts_not_found"
  /** A DNS server failed or did not answer (SERVFAIL, time-out). Temporary. */
  | "dns_temporary_failure";

export type MailHostLookup =
  | { ok: true; hosts: MailHost[] }
  | { ok: false; failure: MailHostLookupFailure; permanent: boolean; text: string };

/**
 * A resolver that asks `servers` ("127.0.0.1:5353", "[::1]:53", "9.9.9.9"), or the system's
 * servers when none are given. Bun's resolver takes a port in setServers, as node's does.
 */
export function createMailDnsResolver(servers?: string[]): MailDnsResolver {
  const resolver = new dns.Resolver({ timeout: dnsLookupTimeoutMs, tries: 2 });
  if (servers?.length) resolver.setServers(servers);
  return resolver;
}

type LookupOutcome<T> = { ok: true; value: T } | { ok: false; code: string };

// node answers ENOTFOUND for NXDOMAIN and ENODATA for a name without records of the asked
// type; Bun answers ENOTFOUND for both, so neither code alone proves the domain is missing.
const nameHasNoSuchRecords = (code: string) => code === "ENOTFOUND" || code === "ENODATA";
const nameIsInvalid = (code: string) => code === "EBADNAME" || code === "EBADQUERY" || code === "EBADSTR";

const domainNameLengthMax = 253;
const labelPattern = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;
/**
 * An ASCII host name (internationalized names must come as A-labels, "xn--..."). Checked here
 * because Bun's resolver answers ENOTFOUND instead of EBADNAME for a malformed name, and a
 * name that is not one should reach no DNS server.
 */
export function isValidDomainName(name: string): boolean {
  return name.length <= domainNameLengthMax && name.replace(/\.$/, "").split(".").every((label) => labelPattern.test(label));
}

async function ask<T>(question: () => Promise<T>): Promise<LookupOutcome<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<LookupOutcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, code: "ETIMEOUT" }), dnsLookupTimeoutMs);
  });
  const answer = question().then(
    (value): LookupOutcome<T> => ({ ok: true, value }),
    (error: unknown): LookupOutcome<T> => ({ ok: false, code: String((error as { code?: unknown })?.code ?? "EUNKNOWN") }),
  );
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

type AddressLookup = { addresses: string[]; temporaryFailureCode: string | null };

async function lookupAddresses(hostName: string, resolver: MailDnsResolver): Promise<AddressLookup> {
  const answers = await Promise.all([ask(() => resolver.resolve4(hostName)), ask(() => resolver.resolve6(hostName))]);
  const addresses: string[] = [];
  let temporaryFailureCode: string | null = null;
  for (const answer of answers) {
    if (answer.ok) addresses.push(...answer.value);
    else if (!nameHasNoSuchRecords(answer.code) && !nameIsInvalid(answer.code)) temporaryFailureCode ??= answer.code;
  }
  return { addresses, temporaryFailureCode };
}

const isNullMx = (exchange: string) => exchange === "" || exchange === ".";

// RFC 5321 section 5.1: hosts of equal preference are tried in random order to spread load.
function orderByPreference<T extends { priority: number }>(records: T[], random: () => number): T[] {
  const keyed = records.map((record) => ({ record, tieBreak: random() }));
  keyed.sort((a, b) => a.record.priority - b.record.priority || a.tieBreak - b.tieBreak);
  return keyed.map(({ record }) => record);
}

/** The hosts to deliver mail for `domain` to, in the order to try them, each with its addresses. */
export async function lookupMailHosts(
  domain: string,
  resolver: MailDnsResolver,
  random: () => number = Math.random,
): Promise<MailHostLookup> {
  const temporary = (code: string, what: string): MailHostLookup => ({
    ok: false,
    failure: "dns_temporary_failure",
    permanent: false,
    text: `DNS lookup of ${what} failed: ${code}`,
  });
  if (!isValidDomainName(domain)) {
    return { ok: false, failure: "domain_not_found", permanent: true, text: `${JSON.stringify(domain)} is not a valid domain name` };
  }
  const mx = await ask(() => resolver.resolveMx(domain));
  if (!mx.ok && !nameHasNoSuchRecords(mx.code)) return temporary(mx.code, `the MX records of ${domain}`);

  const records = mx.ok ? mx.value : [];
  if (!records.length) {
    const own = await lookupAddresses(domain, resolver);
    if (own.addresses.length) return { ok: true, hosts: [{ hostName: domain, preference: 0, addresses: own.addresses, implicit: true }] };
    if (own.temporaryFailureCode) return temporary(own.temporaryFailureCode, `the addresses of ${domain}`);
    return { ok: false, failure: "domain_not_found", permanent: true, text: `${domain} has no MX, A or AAAA record` };
  }

  // RFC 7505 section 3: a null MX among other MX records is only an unusable host to skip
  const usable = records.filter((record) => !isNullMx(record.exchange));
  const valid = usable.filter((record) => isValidDomainName(record.exchange));
  if (!usable.length) return { ok: false, failure: "null_mx", permanent: true, text: `${domain} accepts no mail (null MX, RFC 7505)` };

  const tried = orderByPreference(valid, random).slice(0, mxHostsTriedMax);
  const lookups = await Promise.all(tried.map((record) => lookupAddresses(record.exchange, resolver)));
  const hosts: MailHost[] = [];
  tried.forEach((record, index) => {
    const { addresses } = lookups[index]!;
    if (addresses.length) hosts.push({ hostName: record.exchange, preference: record.priority, addresses, implicit: false });
  });
  if (hosts.length) return { ok: true, hosts };
  const temporaryFailureCode = lookups.find((lookup) => lookup.temporaryFailureCode)?.temporaryFailureCode;
  if (temporaryFailureCode) return temporary(temporaryFailureCode, `the MX hosts of ${domain}`);
  return {
    ok: false,
    failure: "mx_hosts_not_found",
    permanent: true,
    text: `no MX host of ${domain} has an address (${tried.map((record) => record.exchange).join(", ")})`,
  };
}
