// The DNS records a sending domain publishes, and the check of each against what DNS answers:
// DKIM (the public key under the domain's selector), the return-path's MX and SPF (bounces come
// back to our inbound server; SPF is checked against the return-path, which is ours), the
// domain's own MX when it receives mail, and a DMARC policy (suggested: not required).
import type { promises as dns } from "node:dns";

export const returnPathLabel = "bounces";
export const mxPriority = 10;
/** What a check keeps of what DNS answered for one record. */
export const foundValuesMax = 5;
export const foundValueLengthMax = 512;

export type RecordKind = "DKIM" | "SPF" | "MX" | "RECEIVING_MX" | "DMARC";
export type RecordStatus = "verified" | "not_found" | "mismatch" | "temporary_error";

export interface ExpectedRecord {
  record: RecordKind;
  name: string;
  type: "TXT" | "MX";
  value: string;
  priority: number | null;
  /** Verification needs it (DMARC is a suggestion; RECEIVING_MX only when receiving). */
  required: boolean;
}

export interface RecordCheck extends ExpectedRecord {
  status: RecordStatus;
  /** What DNS answered (bounded), so a person can see why a record does not match. */
  found: string[];
}

export function expectedRecords(domain: { name: string; dkimSelector: string; dkimPublicKey: string; receiving: boolean }, mailHostname: string): ExpectedRecord[] {
  const returnPath = `${returnPathLabel}.${domain.name}`;
  const records: ExpectedRecord[] = [
    { record: "DKIM", name: `${domain.dkimSelector}._domainkey.${domain.name}`, type: "TXT", value: `v=DKIM1; k=rsa; p=${domain.dkimPublicKey}`, priority: null, required: true },
    { record: "MX", name: returnPath, type: "MX", value: mailHostname, priority: mxPriority, required: true },
    { record: "SPF", name: returnPath, type: "TXT", value: `v=spf1 a:${mailHostname} -all`, priority: null, required: true },
    { record: "DMARC", name: `_dmarc.${domain.name}`, type: "TXT", value: "v=DMARC1; p=none;", priority: null, required: false },
  ];
  if (domain.receiving) records.splice(3, 0, { record: "RECEIVING_MX", name: domain.name, type: "MX", value: mailHostname, priority: mxPriority, required: true });
  return records;
}

const bound = (values: string[]) => values.slice(0, foundValuesMax).map((value) => value.slice(0, foundValueLengthMax));
const sameHost = (a: string, b: string) => a.replace(/\.$/, "").toLowerCase() === b.replace(/\.$/, "").toLowerCase();
const absent = (error: unknown) => ["ENOTFOUND", "ENODATA", "NOTFOUND", "NODATA"].includes((error as { code?: string }).code ?? "");

/** Whether the TXT values hold what the record needs (each value is its strings joined, as DNS splits long ones). */
function txtMatches(record: ExpectedRecord, values: string[]): boolean {
  const squash = (value: string) => value.replace(/\s+/g, "");
  if (record.record === "DKIM") return values.some((value) => squash(value).includes(`p=${squash(record.value).split("p=")[1]}`) && /v=DKIM1/i.test(value));
  if (record.record === "SPF") return values.some((value) => value.startsWith("v=spf1") && value.split(/\s+/).includes(record.value.split(" ")[1]!));
  return values.some((value) => /^v=DMARC1/i.test(value.trim()));
}

export async function checkRecord(resolver: dns.Resolver, record: ExpectedRecord): Promise<RecordCheck> {
  try {
    if (record.type === "MX") {
      const answers = await resolver.resolveMx(record.name);
      const found = answers.map((answer) => `${answer.priority} ${answer.exchange}`);
      return { ...record, status: answers.some((answer) => sameHost(answer.exchange, record.value)) ? "verified" : "mismatch", found: bound(found) };
    }
    const values = (await resolver.resolveTxt(record.name)).map((strings) => strings.join(""));
    // A long record is split into 255-byte strings; some resolvers hand them back as separate
    // records, so a lone DKIM record is also tried as their concatenation.
    const candidates = values.length > 1 ? [...values, values.join("")] : values;
    return { ...record, status: txtMatches(record, candidates) ? "verified" : "mismatch", found: bound(values) };
  } catch (error) {
    return { ...record, status: absent(error) ? "not_found" : "temporary_error", found: [] };
  }
}
