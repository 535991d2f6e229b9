// Whom an inbound recipient belongs to. We accept mail only for our tenants, never relay:
// - any local part at a verified domain with receiving on (its own MX points at us);
// - any local part at `bounces.{D}`, the return path of a domain D that has been verified
//   (also once it has failed: bounces of what it sent while verified still arrive; a domain
//   never verified sent nothing, so nothing can bounce back).
// Domain names compare case-insensitively (and an internationalised name as its A-label).
// A name can belong to several tenants; each gets the message once.
import { returnPathLabel } from "../domains/records.ts";
import type { DomainStore, MailDomain } from "../store/domains.ts";

export type InboundRouteKind = "mail" | "report";

export interface InboundRoute {
  kind: InboundRouteKind;
  tenantId: string;
  domainId: string;
  /** The recipient as accepted: its local part as given, its domain lower-case ASCII. */
  address: string;
}

/** What a URL's host would drop or read as something else (a path, a port, credentials). */
const notInDomain = /[\s/?#\\:@%[\]]/;
const asciiDomainShape = /^[a-z0-9.-]+$/;

/** A domain in ASCII lower case (an internationalised one as its A-label), or null when it cannot be one. */
function asciiDomain(domain: string): string | null {
  if (domain === "" || notInDomain.test(domain)) return null;
  try {
    const ascii = new URL(`http://${domain}`).hostname.replace(/\.$/, "");
    return asciiDomainShape.test(ascii) ? ascii : null;
  } catch {
    return null;
  }
}

export async function routesOf(domains: DomainStore, rcptTo: string): Promise<InboundRoute[]> {
  const at = rcptTo.lastIndexOf("@");
  const domain = at > 0 ? asciiDomain(rcptTo.slice(at + 1)) : null;
  if (domain === null) return [];
  const address = `${rcptTo.slice(0, at)}@${domain}`;
  const returnPathOf = domain.startsWith(`${returnPathLabel}.`) ? domain.slice(returnPathLabel.length + 1) : null;
  const candidates = await domains.withNames(returnPathOf ? [domain, returnPathOf] : [domain]);
  const route = (kind: InboundRouteKind, owner: MailDomain): InboundRoute => ({ kind, tenantId: owner.tenantId, domainId: owner.id, address });
  return [
    ...candidates.filter((owner) => owner.name === domain && owner.status === "verified" && owner.receiving).map((owner) => route("mail", owner)),
    ...candidates.filter((owner) => owner.name === returnPathOf && owner.verifiedAt !== null).map((owner) => route("report", owner)),
  ];
}
