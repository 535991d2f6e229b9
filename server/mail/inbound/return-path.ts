// Our envelope sender (MAIL FROM) for an email from domain D is `bounce+{email id}@bounces.D`
// (VERP): a bounce or a complaint comes back to that address, so it names the email even when
// the report quotes nothing of it. `bounces.D` is the host the domain's return-path MX points
// at us (server/mail/domains/records.ts).
import { returnPathLabel } from "../domains/records.ts";

const localPartPrefix = "bounce+";
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The return-path host of `domain`: `bounces.{domain}`. */
export const returnPathHost = (domain: string) => `${returnPathLabel}.${domain.toLowerCase()}`;

/** The envelope sender for the email `emailId` (a UUID) sent from `domain`. */
export const returnPathFor = (emailId: string, domain: string) => `${localPartPrefix}${emailId.toLowerCase()}@${returnPathHost(domain)}`;

/** The email id in a return-path address (`bounce+{uuid}@bounces.…`, any case), or null when it names none. */
export function emailIdFromReturnPath(rcptTo: string): string | null {
  const at = rcptTo.lastIndexOf("@");
  if (at < 0 || !rcptTo.slice(at + 1).toLowerCase().startsWith(`${returnPathLabel}.`)) return null;
  const localPart = rcptTo.slice(0, at).toLowerCase();
  if (!localPart.startsWith(localPartPrefix)) return null;
  const id = localPart.slice(localPartPrefix.length);
  return uuidPattern.test(id) ? id : null;
}
