// A self-signed X.509 certificate made at test time with node:crypto alone, so the TLS tests
// need no openssl binary and no certificate checked into the repository. node:crypto makes
// keys but not certificates, so the certificate's DER is written here: it is a handful of
// fixed ASN.1 structures (RFC 5280 section 4.1), and the key's SubjectPublicKeyInfo comes
// ready-made from node:crypto.
import { generateKeyPairSync, randomBytes, sign } from "node:crypto";

export type SelfSignedCertificate = { keyPem: string; certificatePem: string };

const certificateValidityMs = 24 * 60 * 60 * 1000;

const derLength = (length: number): Buffer => {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};
const der = (tag: number, ...contents: Buffer[]): Buffer => {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
};
const sequence = (...contents: Buffer[]) => der(0x30, ...contents);
const set = (...contents: Buffer[]) => der(0x31, ...contents);
const objectIdentifier = (dotted: string): Buffer => {
  const [first = 0, second = 0, ...rest] = dotted.split(".").map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let value = arc >> 7; value > 0; value >>= 7) base128.unshift((value & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return der(0x06, Buffer.from(bytes));
};
/** A DER INTEGER is minimal: leading zero bytes go, and one comes back only to keep the value positive. */
function positiveInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const minimal = bytes.subarray(start);
  return der(0x02, minimal[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}
const utf8String = (text: string) => der(0x0c, Buffer.from(text, "utf8"));
// UTCTime YYMMDDHHMMSSZ, valid for dates before 2050 (RFC 5280 section 4.1.2.5)
const utcTime = (date: Date) => der(0x17, Buffer.from(date.toISOString().replace(/[-:T]/g, "").slice(2, 14) + "Z", "ascii"));

const sha256WithRsaEncryption = sequence(objectIdentifier("1.2.840.113549.1.1.11"), der(0x05));
const commonNameOid = "2.5.4.3";
const subjectAltNameOid = "2.5.29.17";

/** A 2048-bit RSA key and a certificate for `hostName` (also valid for 127.0.0.1), signed by itself. */
export function makeSelfSignedCertificate(hostName: string): SelfSignedCertificate {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const name = sequence(set(sequence(objectIdentifier(commonNameOid), utf8String(hostName))));
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + certificateValidityMs);
  const subjectAltNames = sequence(der(0x82, Buffer.from(hostName, "ascii")), der(0x87, Buffer.from([127, 0, 0, 1])));
  const extensions = der(0xa3, sequence(sequence(objectIdentifier(subjectAltNameOid), der(0x04, subjectAltNames))));
  const toBeSigned = sequence(
    der(0xa0, der(0x02, Buffer.from([2]))), // version v3
    positiveInteger(randomBytes(16)),
    sha256WithRsaEncryption,
    name,
    sequence(utcTime(notBefore), utcTime(notAfter)),
    name,
    publicKey.export({ type: "spki", format: "der" }),
    extensions,
  );
  const signature = sign("sha256", toBeSigned, privateKey);
  const certificate = sequence(toBeSigned, sha256WithRsaEncryption, der(0x03, Buffer.from([0]), signature));
  const base64Lines = certificate.toString("base64").match(/.{1,64}/g) ?? [];
  return {
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    certificatePem: `-----BEGIN CERTIFICATE-----\n${base64Lines.join("\n")}\n-----END CERTIFICATE-----\n`,
  };
}
