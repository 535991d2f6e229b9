// Just enough of DER (ITU-T X.690) to list the extensions of an X.509 certificate: node:crypto's
// X509Certificate checks signatures, issuers and dates but does not expose arbitrary
// extensions, and Apple's chain is recognised by two of its own (x509-chain.ts). Every length
// is checked against its container, so a hostile certificate can only fail to parse.

export class DerError extends Error {}

interface Element {
  tag: number;
  /** Offset of the content's first byte. */
  start: number;
  /** Offset just past the content. */
  end: number;
}

/** The element starting at `offset`, which must end within `limit`. */
function readElement(bytes: Uint8Array, offset: number, limit: number): Element {
  if (offset + 2 > limit) throw new DerError("truncated element");
  const tag = bytes[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new DerError("multi-byte tags are not used in certificates");
  let length = bytes[offset + 1]!;
  let start = offset + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4 || start + octets > limit) throw new DerError("bad length");
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + bytes[start + i]!;
    start += octets;
  }
  const end = start + length;
  if (end > limit) throw new DerError("element longer than its container");
  return { tag, start, end };
}

/** The elements inside a constructed element. */
function children(bytes: Uint8Array, parent: Element): Element[] {
  const found: Element[] = [];
  for (let offset = parent.start; offset < parent.end;) {
    const child = readElement(bytes, offset, parent.end);
    found.push(child);
    offset = child.end;
  }
  return found;
}

/** Dotted text of an OBJECT IDENTIFIER's content. */
export function oidText(content: Uint8Array): string {
  if (content.length === 0) throw new DerError("empty object identifier");
  const arcs: number[] = [];
  let value = 0;
  for (const byte of content) {
    value = value * 128 + (byte & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER / 128) throw new DerError("object identifier arc too large");
    if (!(byte & 0x80)) {
      if (arcs.length === 0) arcs.push(value < 80 ? Math.floor(value / 40) : 2, value < 80 ? value % 40 : value - 80);
      else arcs.push(value);
      value = 0;
    }
  }
  return arcs.join(".");
}

const sequenceTag = 0x30;
const oidTag = 0x06;
const extensionsTag = 0xa3;

/** The object identifiers of a DER certificate's extensions (empty when it has none). */
export function certificateExtensionOids(der: Uint8Array): Set<string> {
  const certificate = readElement(der, 0, der.length);
  if (certificate.tag !== sequenceTag) throw new DerError("a certificate is a SEQUENCE");
  const tbs = children(der, certificate)[0];
  if (tbs === undefined || tbs.tag !== sequenceTag) throw new DerError("the certificate has no tbsCertificate");
  const oids = new Set<string>();
  const wrapper = children(der, tbs).find((element) => element.tag === extensionsTag);
  if (wrapper === undefined) return oids;
  const list = children(der, wrapper)[0];
  if (list === undefined || list.tag !== sequenceTag) throw new DerError("extensions are a SEQUENCE");
  for (const extension of children(der, list)) {
    const id = extension.tag === sequenceTag ? children(der, extension)[0] : undefined;
    if (id === undefined || id.tag !== oidTag) throw new DerError("an extension starts with its OBJECT IDENTIFIER");
    oids.add(oidText(der.subarray(id.start, id.end)));
  }
  return oids;
}
