// A webhook destination's signing secret, in one of two forms (docs/findings.md, "Signing"):
// Standard Webhooks' `whsec_<base64>` (the key is the decoded bytes), which the standardwebhooks
// and svix libraries take as is, or a plain string of visible ASCII characters (the key is its
// UTF-8 bytes). The region's delivery derives the key (server/findings/delivery/webhook-signature.ts).
import { signingSecretLengthMax, signingSecretLengthMin, whsecKeyBytesMax, whsecKeyBytesMin } from "./findings-limits.ts";
import { signingSecretPrefix as whsecPrefix } from "../../findings/delivery/webhook-signature.ts";

const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const visibleAscii = /^[\x21-\x7e]+$/;

/** Why the secret is not acceptable, or null when it is. */
export function signingSecretProblem(secret: string): string | null {
  if (secret.startsWith(whsecPrefix)) {
    const encoded = secret.slice(whsecPrefix.length);
    const bytes = base64Pattern.test(encoded) ? Buffer.from(encoded, "base64").length : -1;
    if (bytes < whsecKeyBytesMin || bytes > whsecKeyBytesMax) {
      return `signing_secret starting with whsec_ must be whsec_ and the base64 of ${whsecKeyBytesMin} to ${whsecKeyBytesMax} bytes`;
    }
    return null;
  }
  if (secret.length < signingSecretLengthMin || secret.length > signingSecretLengthMax || !visibleAscii.test(secret)) {
    return `signing_secret must be whsec_<base64> or ${signingSecretLengthMin} to ${signingSecretLengthMax} visible ASCII characters`;
  }
  return null;
}
