import { refuseForbiddenCharacters } from "./characters.ts";
import { ComposeError, quotedKey } from "./errors.ts";

// Custom headers from the request. The name is RFC 5322 ftext (printable ASCII except the
// colon); the value is unstructured text without line breaks (non-ASCII is MIME-encoded when
// the message is built). The headers that say who sent the message, to whom, and how it is
// framed are ours: a sender who could set them could forge another From, leak a Bcc, or break
// the MIME structure and the DKIM signature. Received, Authentication-Results and ARC-* are
// written by receiving servers, and a sender forging them only fools filters, so they are
// refused too. Reply-To has its own field (`reply_to`).

export interface CustomHeader {
  name: string;
  value: string;
}

export const customHeadersMax = 50;
export const customHeaderNameLengthMax = 76;
/** So that name, colon, space and value fit RFC 5322's 998-character line even unfolded. */
export const customHeaderValueLengthMax = 998 - customHeaderNameLengthMax - 2;

const reservedHeaderNames = new Set([
  "from",
  "sender",
  "to",
  "cc",
  "bcc",
  "reply-to",
  "subject",
  "date",
  "message-id",
  "dkim-signature",
  "return-path",
  "mime-version",
  "received",
  "authentication-results",
]);
const reservedHeaderPrefixes = ["content-", "arc-"];
const headerNamePattern = /^[\x21-\x39\x3b-\x7e]+$/;

export const isReservedHeader = (name: string): boolean => {
  const lower = name.toLowerCase();
  return reservedHeaderNames.has(lower) || reservedHeaderPrefixes.some((prefix) => lower.startsWith(prefix));
};

export function parseCustomHeaders(input: unknown, field = "headers"): CustomHeader[] {
  if (input === undefined || input === null) return [];
  if (typeof input !== "object" || Array.isArray(input)) {
    throw new ComposeError(field, "invalid_type", "must be an object of names to values");
  }
  const entries = Object.entries(input);
  if (entries.length > customHeadersMax) {
    throw new ComposeError(field, "too_many", `at most ${customHeadersMax} headers; got ${entries.length}`);
  }
  const seen = new Set<string>();
  return entries.map(([name, value]) => {
    const headerField = `${field}[${quotedKey(name)}]`;
    if (name.length > customHeaderNameLengthMax) {
      throw new ComposeError(headerField, "too_long", `a header name must be at most ${customHeaderNameLengthMax} characters`);
    }
    refuseForbiddenCharacters(name, headerField, { allowTab: false });
    if (!headerNamePattern.test(name)) {
      throw new ComposeError(headerField, "invalid_value", "a header name is printable ASCII without spaces or colons");
    }
    if (isReservedHeader(name)) {
      throw new ComposeError(headerField, "reserved_header", "this header is set by the mail service and cannot be given");
    }
    if (seen.has(name.toLowerCase())) {
      throw new ComposeError(headerField, "duplicate", "the same header is given twice (names are case-insensitive)");
    }
    seen.add(name.toLowerCase());
    if (typeof value !== "string") throw new ComposeError(headerField, "invalid_type", "must be a string");
    refuseForbiddenCharacters(value, headerField, { allowTab: true });
    if (value.trim() === "") throw new ComposeError(headerField, "invalid_value", "must not be empty");
    if (value.length > customHeaderValueLengthMax) {
      throw new ComposeError(headerField, "too_long", `must be at most ${customHeaderValueLengthMax} characters`);
    }
    return { name, value };
  });
}
