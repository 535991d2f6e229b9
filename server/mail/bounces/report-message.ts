/**
 * Reads a report message (a DSN, an ARF complaint or a plain-text bounce) with mailparser, bounded:
 * only the first `reportReadBytesMax` bytes are parsed (the report parts come first; what is cut
 * is the tail of the returned original), and every non-text part stays an undecoded attachment
 * (`message/delivery-status`, `message/feedback-report`, `message/rfc822`, `text/rfc822-headers`)
 * for the report parsers to read.
 */
import { simpleParser, type Attachment, type ParsedMail, type StructuredHeader } from "mailparser";
import { messageIdOrNull } from "./text.ts";

/** Most bytes of a report message parsed; the rest (a large returned original) is never read. */
export const reportReadBytesMax = 1024 * 1024;
/** Most bytes of a returned message's header block parsed for its Message-ID and To. */
export const returnedHeaderBytesMax = 64 * 1024;
/** Most MIME parts parsed in a report (a DSN has three, with a nested original a few more). */
export const reportMimePartsMax = 64;
/** Largest header block of one MIME part, in bytes. */
export const reportHeadBytesMax = 256 * 1024;

export interface ReportMessage {
  parsed: ParsedMail;
  /** Lower-case top-level media type, e.g. `multipart/report`. */
  contentType: string;
  /** Lower-case `report-type` parameter, or null. */
  reportType: string | null;
}

/** Parses `raw`, or returns null when mailparser cannot read it at all. */
export async function readReportMessage(raw: Buffer | string): Promise<ReportMessage | null> {
  const bytes = typeof raw === "string" ? Buffer.from(raw, "utf8") : raw;
  let parsed: ParsedMail;
  try {
    parsed = await simpleParser(bytes.subarray(0, reportReadBytesMax), {
      keepDeliveryStatus: true,
      ignoreEmbedded: true,
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipImageLinks: true,
      keepCidLinks: true,
      checksumAlgo: false,
      maxChildNodes: reportMimePartsMax,
      maxHeadSize: reportHeadBytesMax,
    });
  } catch {
    return null;
  }
  const contentTypeHeader = parsed.headers.get("content-type") as StructuredHeader | undefined;
  const contentType = (contentTypeHeader?.value ?? "text/plain").toLowerCase();
  const reportType = contentTypeHeader?.params["report-type"]?.trim().toLowerCase() ?? null;
  return { parsed, contentType, reportType };
}

/** The first attachment of one of `contentTypes`, or undefined. */
export function findPart(parsed: ParsedMail, contentTypes: readonly string[]): Attachment | undefined {
  return parsed.attachments.find((part) => contentTypes.includes(part.contentType.toLowerCase()));
}

/** Media types that carry the returned original message or its header block. */
export const returnedMessageTypes = [
  "message/rfc822",
  "text/rfc822-headers",
  "message/rfc822-headers",
  "message/global",
  "message/global-headers",
] as const;

export interface ReturnedHeaders {
  messageId: string | null;
  /** The first mailbox of the original's To header, as written there. */
  to: string | null;
}

/** Message-ID and To of the returned original attached to `parsed`, or null when none is attached. */
export async function returnedHeaders(parsed: ParsedMail): Promise<ReturnedHeaders | null> {
  const part = findPart(parsed, returnedMessageTypes);
  return part ? headersOf(part.content) : null;
}

/** Message-ID and To from the header block at the start of `message`. */
export async function headersOf(message: Buffer | string): Promise<ReturnedHeaders> {
  const bytes = typeof message === "string" ? Buffer.from(message, "utf8") : message;
  const head = bytes.subarray(0, returnedHeaderBytesMax);
  const blankLine = /\r?\n\r?\n/.exec(head.toString("latin1"));
  const block = blankLine ? head.subarray(0, blankLine.index + blankLine[0].length) : head;
  try {
    const headers = await simpleParser(block, { skipHtmlToText: true, skipTextToHtml: true, checksumAlgo: false, maxChildNodes: 1 });
    const to = Array.isArray(headers.to) ? headers.to[0] : headers.to;
    return { messageId: messageIdOrNull(headers.messageId), to: to?.value.find((entry) => entry.address)?.address ?? null };
  } catch {
    return { messageId: null, to: null };
  }
}
