// Certificate chains and App Store JWS made in the test, shaped like Apple's: an ECDSA root, an
// intermediate CA with Apple's WWDR extension, a leaf with Apple's receipt-signing extension.
// The certificates are DER written here with node:crypto keys, no X.509 library: @peculiar/x509
// could not sign beside this project's other dependencies (npm nested a separate
// @peculiar/asn1-schema under each @peculiar/asn1-* package, so its schema registry was split
// and EC certificates failed with "Cannot get schema for 'AlgorithmIdentifier'").
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { appleReceiptSigningOid, appleWwdrIntermediateOid } from "../../../../server/ingest/revenue/providers/x509-chain.ts";

const concat = (...parts: Uint8Array[]) => Buffer.concat(parts);

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, ...content: Uint8Array[]) => { const body = concat(...content); return concat(Buffer.from([tag]), length(body.length), body); };
const sequence = (...content: Uint8Array[]) => tlv(0x30, ...content);
const set = (...content: Uint8Array[]) => tlv(0x31, ...content);
const integer = (value: number) => tlv(0x02, Buffer.from([value & 0x7f]));
const utf8 = (text: string) => tlv(0x0c, Buffer.from(text, "utf8"));
const octets = (content: Uint8Array) => tlv(0x04, content);
const bits = (content: Uint8Array) => tlv(0x03, Buffer.from([0]), content);
const explicit = (n: number, content: Uint8Array) => tlv(0xa0 | n, content);
const booleanTrue = Buffer.from([0x01, 0x01, 0xff]);

function oid(text: string): Buffer {
  const [first, second, ...rest] = text.split(".").map(Number) as [number, number, ...number[]];
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128)) chunk.unshift(0x80 | (value & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, "").slice(0, 14);
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

const ecdsaWithSha256 = sequence(oid("1.2.840.10045.4.3.2"));
const name = (commonName: string) => sequence(set(sequence(oid("2.5.4.3"), utf8(commonName))));
const extension = (id: string, value: Uint8Array, critical = false) => sequence(oid(id), ...(critical ? [booleanTrue] : []), octets(value));
const derNull = Buffer.from([0x05, 0x00]);

export interface Party {
  name: string;
  keys: { publicKey: KeyObject; privateKey: KeyObject };
}

export const party = (commonName: string): Party => ({ name: commonName, keys: generateKeyPairSync("ec", { namedCurve: "P-256" }) });

export interface CertificateOptions {
  subject: Party;
  issuer: Party;
  serial: number;
  notBefore: Date;
  notAfter: Date;
  ca: boolean;
  /** Extra extension OIDs, each with a NULL value (as Apple's marker extensions are). */
  markers?: string[];
}

/** A DER certificate of `subject`'s key signed by `issuer`'s. */
export function certificate(options: CertificateOptions): Buffer {
  const extensions = [
    extension("2.5.29.19", options.ca ? sequence(booleanTrue) : sequence(), true),
    ...(options.markers ?? []).map((marker) => extension(marker, derNull)),
  ];
  const tbs = sequence(
    explicit(0, integer(2)),
    integer(options.serial),
    ecdsaWithSha256,
    name(options.issuer.name),
    sequence(time(options.notBefore), time(options.notAfter)),
    name(options.subject.name),
    options.subject.keys.publicKey.export({ type: "spki", format: "der" }),
    explicit(3, sequence(...extensions)),
  );
  const signature = sign("sha256", tbs, { key: options.issuer.keys.privateKey, dsaEncoding: "der" });
  return sequence(tbs, ecdsaWithSha256, bits(signature));
}

export const pem = (der: Buffer) => `-----BEGIN CERTIFICATE-----\n${der.toString("base64").replace(/.{64}/g, "$&\n")}\n-----END CERTIFICATE-----\n`;

export interface Chain {
  root: Party;
  leaf: Party;
  rootDer: Buffer;
  x5c: string[];
}

const yearMs = 365 * 86_400_000;

/** A chain shaped like Apple's, valid around `at`; `leafValidity` narrows the leaf's dates, `markers: false` leaves out Apple's extensions. */
export function appleLikeChain(at: number, options: { leafValidity?: [number, number]; markers?: boolean } = {}): Chain {
  const root = party("Test Root CA - G3");
  const intermediate = party("Test Worldwide Developer Relations CA");
  const leaf = party("Test App Store Receipt Signing");
  const withMarkers = options.markers ?? true;
  const rootDer = certificate({ subject: root, issuer: root, serial: 1, notBefore: new Date(at - 5 * yearMs), notAfter: new Date(at + 5 * yearMs), ca: true });
  const intermediateDer = certificate({
    subject: intermediate, issuer: root, serial: 2, notBefore: new Date(at - 2 * yearMs), notAfter: new Date(at + 2 * yearMs), ca: true,
    markers: withMarkers ? [appleWwdrIntermediateOid] : [],
  });
  const [from, to] = options.leafValidity ?? [at - yearMs, at + yearMs];
  const leafDer = certificate({ subject: leaf, issuer: intermediate, serial: 3, notBefore: new Date(from), notAfter: new Date(to), ca: false, markers: withMarkers ? [appleReceiptSigningOid] : [] });
  return { root, leaf, rootDer, x5c: [leafDer, intermediateDer, rootDer].map((der) => der.toString("base64")) };
}

/** A compact ES256 JWS of `payload` signed by `signer` (the chain's leaf unless told), with `x5c`. */
export function signJws(payload: object, chain: Chain, signer: Party = chain.leaf): string {
  const header = Buffer.from(JSON.stringify({ alg: "ES256", x5c: chain.x5c })).toString("base64url");
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  const signature = sign("sha256", Buffer.from(`${header}.${body}`), { key: signer.keys.privateKey, dsaEncoding: "ieee-p1363" });
  return `${header}.${body}.${signature.toString("base64url")}`;
}
