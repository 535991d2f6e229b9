// A domain's DKIM key pair, made when the domain is added: RSA 2048 (what every receiver
// verifies; Ed25519 DKIM is not yet widely accepted), the private key as PKCS#8 PEM for the
// signer, the public key as base64 SPKI DER for the DNS record's `p=`.
import { generateKeyPair } from "node:crypto";
import { promisify } from "node:util";

export const dkimKeyBits = 2_048;

export interface DkimKeyPair {
  privateKeyPem: string;
  publicKeyBase64: string;
}

export async function newDkimKeyPair(): Promise<DkimKeyPair> {
  const { privateKey, publicKey } = await promisify(generateKeyPair)("rsa", {
    modulusLength: dkimKeyBits,
    publicKeyEncoding: { type: "spki", format: "der" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  return { privateKeyPem: privateKey as unknown as string, publicKeyBase64: (publicKey as unknown as Buffer).toString("base64") };
}

/** A selector per domain (a new key can later come under a new selector without breaking the old signatures). */
export const newDkimSelector = (now: number) => `svc${new Date(now).toISOString().slice(0, 10).replaceAll("-", "")}`;
