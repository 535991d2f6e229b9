// DKIM-signs a composed message with its sending domain's key (RFC 6376) through nodemailer's
// signer: rsa-sha256, relaxed/relaxed, no t= or x= tag, over nodemailer's default header list
// (From, Sender, Reply-To, Subject, Date, Message-ID, To, Cc, MIME-Version, Content-Type,
// Content-Transfer-Encoding, Content-ID, Content-Description, the Resent-* fields, In-Reply-To,
// References, the List-* fields and OTP-Token), of which only the headers present are named.
import { createPrivateKey } from "node:crypto";
import DKIM from "nodemailer/lib/dkim";

export type DkimKey = {
  /** The d= domain: the sending domain, so that DMARC finds it aligned with From. */
  domainName: string;
  keySelector: string;
  /** PEM, RSA (nodemailer's signer only makes rsa-sha256 signatures). */
  privateKey: string;
};

export class DkimSigningError extends Error {
  readonly code = "dkim_signing_failed";
}

/** `raw` with a DKIM-Signature header in front. Throws DkimSigningError for a key that cannot sign. */
export async function signMessage(raw: Buffer, key: DkimKey): Promise<Buffer> {
  let keyType: string | undefined;
  try {
    keyType = createPrivateKey(key.privateKey).asymmetricKeyType;
  } catch (error) {
    throw new DkimSigningError(`the DKIM key of ${key.domainName} is not a private key: ${(error as Error).message}`);
  }
  if (keyType !== "rsa") throw new DkimSigningError(`the DKIM key of ${key.domainName} is ${keyType}, not RSA`);
  const signed = new DKIM({ domainName: key.domainName, keySelector: key.keySelector, privateKey: key.privateKey }).sign(raw);
  const chunks: Buffer[] = [];
  for await (const chunk of signed) chunks.push(chunk as Buffer);
  const message = Buffer.concat(chunks);
  // nodemailer's signer leaves a message unsigned, silently, when signing fails
  if (!message.subarray(0, 16).toString("latin1").startsWith("DKIM-Signature:")) {
    throw new DkimSigningError(`the message could not be signed for ${key.domainName}`);
  }
  return message;
}
