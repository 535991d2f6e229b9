// The envelope sender of every email: `bounce+{email id}@bounces.{sending domain}` (VERP), so a
// bounce report names its email by the address it is sent to, even when it quotes nothing of
// the original. `bounces.{domain}` has our MX (a required DNS record of every domain).
const returnPathPattern = /^bounce\+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@bounces\.[^@\s]+$/i;

export const returnPathFor = (emailId: string, domain: string) => `bounce+${emailId}@bounces.${domain}`;

/** The email id a return-path address names, or null. */
export const emailIdFromReturnPath = (address: string): string | null => returnPathPattern.exec(address)?.[1]?.toLowerCase() ?? null;
