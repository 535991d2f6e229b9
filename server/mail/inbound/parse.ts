// Reads an inbound message with mailparser, bounded: the fields the API and the `email.received`
// event show, every one cut to a known length and made safe to store (NUL, which PostgreSQL's
// TEXT refuses, becomes U+FFFD). The message is hostile: nothing here is trusted, and a message
// mailparser cannot read is still kept (raw), with empty fields.
import { simpleParser, type AddressObject, type ParsedMail } from "mailparser";
import { oneLine, oneLineOrNull } from "../bounces/text.ts";
import type { InboundAttachment } from "../store/inbound.ts";

/** Most addresses kept of each of To and Cc. */
export const inboundAddressesMax = 100;
/** Most characters of an address kept (RFC 5321's path limit). */
export const inboundAddressCharsMax = 254;
/** Most characters of the Subject and the From header kept (RFC 5322's line limit). */
export const inboundHeaderCharsMax = 998;
/** Most attachments listed; the raw message holds them all. */
export const inboundAttachmentsListedMax = 100;
/** Most characters of an attachment's file name, content type or content id kept. */
export const attachmentFieldCharsMax = 255;
/** Most MIME parts parsed; a message with more is kept raw with empty fields. */
export const inboundMimePartsMax = 500;
/** Largest header block of one MIME part parsed, in bytes. */
export const inboundHeadBytesMax = 256 * 1024;
/** HTML longer than this is not converted into a text body (the conversion is costly). */
export const htmlToTextCharsMax = 2 * 1024 * 1024;

export interface ParsedInbound {
  messageId: string | null;
  fromHeader: string;
  fromAddress: string | null;
  to: string[];
  cc: string[];
  subject: string;
  text: string | null;
  html: string | null;
  attachments: InboundAttachment[];
}

const empty: ParsedInbound = { messageId: null, fromHeader: "", fromAddress: null, to: [], cc: [], subject: "", text: null, html: null, attachments: [] };

const storable = (text: string) => text.replaceAll("\u0000", "\uFFFD").toWellFormed();

function addresses(header: AddressObject | AddressObject[] | undefined): string[] {
  const listed = [header ?? []].flat().flatMap((object) => object.value.flatMap((entry) => [entry, ...(entry.group ?? [])]));
  return listed
    .map((entry) => oneLineOrNull(entry.address, inboundAddressCharsMax))
    .filter((address): address is string => address !== null)
    .slice(0, inboundAddressesMax);
}

function attachmentsOf(parsed: ParsedMail): InboundAttachment[] {
  return parsed.attachments.slice(0, inboundAttachmentsListedMax).map((attachment) => ({
    filename: oneLineOrNull(attachment.filename, attachmentFieldCharsMax),
    contentType: oneLine(attachment.contentType, attachmentFieldCharsMax),
    sizeBytes: attachment.size,
    contentId: oneLineOrNull(attachment.contentId, attachmentFieldCharsMax),
  }));
}

export async function parseInbound(raw: Buffer): Promise<ParsedInbound> {
  let parsed: ParsedMail;
  try {
    parsed = await simpleParser(raw, {
      skipImageLinks: true,
      keepCidLinks: true,
      skipTextToHtml: true,
      skipTextLinks: true,
      checksumAlgo: false,
      maxHtmlLengthToParse: htmlToTextCharsMax,
      maxChildNodes: inboundMimePartsMax,
      maxHeadSize: inboundHeadBytesMax,
    });
  } catch {
    return empty;
  }
  const from = addresses(parsed.from);
  const messageId = oneLineOrNull(parsed.messageId, inboundHeaderCharsMax);
  return {
    messageId: messageId && /^<[^<>\s]+>$/.test(messageId) ? messageId : null,
    fromHeader: oneLine(parsed.from?.text ?? "", inboundHeaderCharsMax),
    fromAddress: from[0]?.toLowerCase() ?? null,
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    subject: oneLine(parsed.subject ?? "", inboundHeaderCharsMax),
    text: parsed.text === undefined ? null : storable(parsed.text),
    html: parsed.html ? storable(parsed.html) : null,
    attachments: attachmentsOf(parsed),
  };
}
