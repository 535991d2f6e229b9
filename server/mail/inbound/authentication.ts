// DKIM and SPF of an inbound message, checked by mailauth against DNS. A result is one of
// mailauth's words (`pass`, `fail`, `softfail`, `neutral`, `none`, `temperror`, `permerror`, …);
// when DNS does not answer in time, both are `temperror` and the message is still accepted.
import { authenticate, type DNSResolver } from "mailauth";
import { oneLine, oneLineOrNull } from "../bounces/text.ts";
import type { DkimSignatureResult } from "../store/inbound.ts";

/** Longest the checks may take before their results count as `temperror`. */
export const authenticationTimeoutMs = 15_000;
/** Most DKIM signatures reported per message. */
export const dkimSignaturesReportedMax = 10;
const tokenCharsMax = 255;

export interface AuthenticationResults {
  spf: string;
  /** `pass` when any signature passes, `none` when there is none, else the first signature's result. */
  dkim: string;
  dkimSignatures: DkimSignatureResult[];
}

export interface SmtpClient {
  /** The client's IP address. */
  ip: string;
  /** What it said at EHLO/HELO. */
  helo: string;
  /** MAIL FROM, empty for the null sender. */
  mailFrom: string;
}

const unanswered: AuthenticationResults = { spf: "temperror", dkim: "temperror", dkimSignatures: [] };

export async function authenticateInbound(raw: Buffer, client: SmtpClient, resolver: DNSResolver, mta: string): Promise<AuthenticationResults> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), authenticationTimeoutMs)));
  const checked = authenticate(raw, { ip: client.ip, helo: client.helo, sender: client.mailFrom, mta, resolver, disableArc: true, disableDmarc: true, disableBimi: true }).catch(() => null);
  const result = await Promise.race([checked, timeout]).finally(() => clearTimeout(timer));
  if (result === null) return unanswered;
  // A message without a signature comes back with one result, `none`, that names no domain.
  const signed = result.dkim.results.filter((signature) => signature.signingDomain);
  const signatures = signed.slice(0, dkimSignaturesReportedMax).map((signature) => ({
    domain: oneLine(signature.signingDomain ?? "", tokenCharsMax),
    selector: oneLineOrNull(signature.selector, tokenCharsMax),
    result: signature.status.result,
  }));
  const dkim = signatures.some((signature) => signature.result === "pass") ? "pass" : (signatures[0]?.result ?? "none");
  return { spf: result.spf ? result.spf.status.result : "none", dkim, dkimSignatures: signatures };
}
