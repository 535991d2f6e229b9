// The resolver mailauth checks DKIM and SPF with: the service's own (MAIL_DNS_SERVERS, else the
// system's), in the shape of node's `dns.promises.resolve`.
import type { promises as dns } from "node:dns";
import type { DNSResolver } from "mailauth";

const dkimKeyName = /\._domainkey\./i;

/**
 * Bun's resolver hands back each 255-byte character-string of a TXT record as a record of its
 * own, which breaks a 2048-bit DKIM key (mailauth reads the first record only). A DKIM key name
 * holds one record, so its strings are joined back into it.
 */
export const mailauthResolver = (resolver: dns.Resolver): DNSResolver => async (name, rrtype) => {
  const answers = (await resolver.resolve(name, rrtype)) as string[][] | string[];
  if (rrtype === "TXT" && dkimKeyName.test(name) && answers.length > 1) return [(answers as string[][]).flat()];
  return answers;
};
