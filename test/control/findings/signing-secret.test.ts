// The two forms of a webhook destination's signing secret give the key a Standard Webhooks
// verifier uses: whsec_<base64> (the decoded bytes, as the standardwebhooks library reads it) and
// a plain string (its UTF-8 bytes); and the checks at each form's edges.
import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { signingSecretProblem } from "../../../server/control/findings/signing-secret.ts";
import { signingKey as signingKeyBytes } from "../../../server/findings/delivery/webhook-signature.ts";
import { signingSecretLengthMax, signingSecretLengthMin, whsecKeyBytesMax, whsecKeyBytesMin } from "../../../server/control/findings/findings-limits.ts";

const payload = JSON.stringify({ type: "finding.test" });
const signedWith = (key: Uint8Array) => {
  const id = "msg_1";
  const timestamp = new Date();
  const signature = new Webhook(key, { format: "raw" }).sign(id, timestamp, payload);
  return { "webhook-id": id, "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)), "webhook-signature": signature };
};

describe("signing secrets", () => {
  test("whsec_<base64>: the key is the decoded bytes, as standardwebhooks reads the secret", () => {
    const secret = `whsec_${Buffer.from("0123456789abcdef01234567").toString("base64")}`;
    expect(Buffer.from(signingKeyBytes(secret)).toString()).toBe("0123456789abcdef01234567");
    expect(() => new Webhook(secret).verify(payload, signedWith(signingKeyBytes(secret)))).not.toThrow();
  });

  test("a plain string: the key is its UTF-8 bytes", () => {
    const secret = "a-plain-signing-secret";
    expect(Buffer.from(signingKeyBytes(secret)).toString()).toBe(secret);
    expect(() => new Webhook(new TextEncoder().encode(secret), { format: "raw" }).verify(payload, signedWith(signingKeyBytes(secret)))).not.toThrow();
  });

  test("each form at its edges", () => {
    const whsec = (bytes: number) => `whsec_${Buffer.alloc(bytes, 9).toString("base64")}`;
    expect([whsec(whsecKeyBytesMin), whsec(whsecKeyBytesMax), "p".repeat(signingSecretLengthMin), "p".repeat(signingSecretLengthMax)].map(signingSecretProblem))
      .toEqual([null, null, null, null]);
    const whsecProblem = `signing_secret starting with whsec_ must be whsec_ and the base64 of ${whsecKeyBytesMin} to ${whsecKeyBytesMax} bytes`;
    const plainProblem = `signing_secret must be whsec_<base64> or ${signingSecretLengthMin} to ${signingSecretLengthMax} visible ASCII characters`;
    expect([whsec(whsecKeyBytesMin - 1), whsec(whsecKeyBytesMax + 1), "whsec_!!!!", "whsec_"].map(signingSecretProblem)).toEqual([whsecProblem, whsecProblem, whsecProblem, whsecProblem]);
    expect(["p".repeat(signingSecretLengthMin - 1), "p".repeat(signingSecretLengthMax + 1), "with space in the middle", "ünïcödé-secret-value"].map(signingSecretProblem))
      .toEqual([plainProblem, plainProblem, plainProblem, plainProblem]);
  });
});
