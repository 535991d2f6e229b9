import { domainToASCII } from "node:url";
import { refuseForbiddenCharacters } from "./characters.ts";
import { ComposeError } from "./errors.ts";

// One mailbox per string, RFC 5322 `mailbox` (name-addr or addr-spec) with these choices:
// - a display name may be quoted ("Acme, Inc." <a@acme.com>) or a plain phrase of atoms
//   (dots allowed, as in obs-phrase: John Q. Public <john@example.com>); a name holding
//   specials such as , ( ) : ; @ must be quoted, because unquoted they change the meaning of
//   the header for the receiver. Non-ASCII names are allowed (they are MIME-encoded later).
// - comments (CFWS) are not supported: nobody sends them through an API, and accepting them
//   would make the name that the recipient sees differ from the one we store.
// - the local part is an ASCII dot-atom: quoted local parts are valid but most receivers
//   refuse them, and non-ASCII local parts need SMTPUTF8, which the delivery does not ask for.
// - the domain is a host name with at least two labels; IDN domains are converted to
//   punycode and lower-cased; domain literals ([192.0.2.1]) are refused (no MX to look up).
// - one string is one mailbox: several recipients are given as an array.

export interface Mailbox {
  /** The display name, unquoted, or null when none was given. */
  name: string | null;
  /** local@domain with the domain in lower-case punycode; the local part keeps its case. */
  address: string;
  /** The domain part of `address`. */
  domain: string;
}

export const localPartLengthMax = 64;
export const addressLengthMax = 254;
export const domainLengthMax = 253;
export const domainLabelLengthMax = 63;
export const displayNameLengthMax = 256;
/** Bounds the raw string before any parsing (a quoted name with escapes is longer than the name). */
export const mailboxInputLengthMax = 2 * displayNameLengthMax + addressLengthMax + 8;

// Resend's limits: 50 per field and 50 recipients in all.
export const toAddressesMax = 50;
export const ccAddressesMax = 50;
export const bccAddressesMax = 50;
export const recipientsTotalMax = 50;
export const replyToAddressesMax = 50;

const atextPattern = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$/;
const dotAtomPattern = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const domainLabelPattern = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const specialsInPhrase = /[()<>[\]:;@\\,"]/;

export function parseMailbox(input: unknown, field: string): Mailbox {
  if (typeof input !== "string") throw new ComposeError(field, "invalid_type", "must be a string");
  if (input.length > mailboxInputLengthMax) {
    throw new ComposeError(field, "too_long", `must be at most ${mailboxInputLengthMax} characters`);
  }
  refuseForbiddenCharacters(input, field, { allowTab: false });
  const value = input.trim();
  if (value === "") throw new ComposeError(field, "invalid_address", "must not be empty");
  const { name, addrSpec } = value.startsWith('"') ? splitQuotedName(value, field) : splitPlainName(value, field);
  if (name !== null && [...name].length > displayNameLengthMax) {
    throw new ComposeError(field, "too_long", `the display name must be at most ${displayNameLengthMax} characters`);
  }
  return { name, ...parseAddrSpec(addrSpec, field) };
}

/** A string or an array of strings, at most `max` of them. */
export function parseMailboxList(input: unknown, field: string, max: number): Mailbox[] {
  const items = typeof input === "string" ? [input] : input;
  if (!Array.isArray(items)) throw new ComposeError(field, "invalid_type", "must be a string or an array of strings");
  if (items.length > max) {
    throw new ComposeError(field, "too_many", `at most ${max} addresses; got ${items.length}`);
  }
  return items.map((item, index) => parseMailbox(item, Array.isArray(input) ? `${field}[${index}]` : field));
}

function splitQuotedName(value: string, field: string): { name: string | null; addrSpec: string } {
  let name = "";
  let index = 1;
  for (; index < value.length; index++) {
    const char = value[index]!;
    if (char === '"') break;
    if (char === "\\") {
      index++;
      if (index === value.length) break;
      name += value[index];
    } else {
      name += char;
    }
  }
  if (index >= value.length) throw new ComposeError(field, "invalid_address", "the quoted display name is not closed");
  const rest = value.slice(index + 1).trim();
  if (rest.startsWith("@")) throw new ComposeError(field, "invalid_address", "quoted local parts are not supported");
  if (!rest.startsWith("<")) {
    throw new ComposeError(field, "invalid_address", "a quoted display name must be followed by <address>");
  }
  return { name: name.trim() || null, addrSpec: angleContent(rest, field) };
}

function splitPlainName(value: string, field: string): { name: string | null; addrSpec: string } {
  const open = value.indexOf("<");
  if (open < 0) {
    if (value.includes(",")) {
      throw new ComposeError(field, "invalid_address", "one address per string: give several addresses as an array");
    }
    return { name: null, addrSpec: value };
  }
  const phrase = value.slice(0, open).trim();
  const special = specialsInPhrase.exec(phrase);
  if (special) {
    throw new ComposeError(
      field,
      "invalid_address",
      `the display name contains ${JSON.stringify(special[0])}: put the name in double quotes`,
    );
  }
  const words = phrase === "" ? [] : phrase.split(/ +/);
  for (const word of words) {
    if (!isPhraseWord(word)) {
      throw new ComposeError(field, "invalid_address", "the display name has characters that must be quoted");
    }
  }
  return { name: words.length ? words.join(" ") : null, addrSpec: angleContent(value.slice(open), field) };
}

// atext, the dots of obs-phrase, and any non-ASCII character (RFC 6532 allows UTF-8 there).
const isPhraseWord = (word: string): boolean =>
  [...word].every((char) => char === "." || char.charCodeAt(0) > 0x7f || atextPattern.test(char));

function angleContent(text: string, field: string): string {
  if (!text.endsWith(">")) throw new ComposeError(field, "invalid_address", "the address must end with >");
  const inner = text.slice(1, -1);
  if (/[<>]/.test(inner)) throw new ComposeError(field, "invalid_address", "more than one <address>");
  return inner.trim();
}

function parseAddrSpec(addrSpec: string, field: string): { address: string; domain: string } {
  if (addrSpec.startsWith('"')) {
    throw new ComposeError(field, "invalid_address", "quoted local parts are not supported");
  }
  const at = addrSpec.lastIndexOf("@");
  if (at < 0) throw new ComposeError(field, "invalid_address", "the address has no @");
  const localPart = addrSpec.slice(0, at);
  if (localPart === "") throw new ComposeError(field, "invalid_address", "the local part (before @) is empty");
  if (/[^\x00-\x7f]/.test(localPart)) {
    throw new ComposeError(field, "invalid_address", "non-ASCII local parts (SMTPUTF8) are not supported");
  }
  if (!dotAtomPattern.test(localPart)) {
    throw new ComposeError(field, "invalid_address", "the local part (before @) is not a valid dot-atom");
  }
  if (localPart.length > localPartLengthMax) {
    throw new ComposeError(field, "too_long", `the local part must be at most ${localPartLengthMax} characters`);
  }
  const domain = parseDomain(addrSpec.slice(at + 1), field);
  const address = `${localPart}@${domain}`;
  if (address.length > addressLengthMax) {
    throw new ComposeError(field, "too_long", `the address must be at most ${addressLengthMax} characters`);
  }
  return { address, domain };
}

/** A host name for mail: IDN to lower-case punycode, at least two labels, no IP literal. */
export function parseDomain(input: string, field: string): string {
  if (input.startsWith("[")) throw new ComposeError(field, "invalid_address", "domain literals are not supported");
  const domain = input === "" ? "" : domainToASCII(input);
  if (domain === "") throw new ComposeError(field, "invalid_address", "the domain is not a valid host name");
  if (domain.length > domainLengthMax) {
    throw new ComposeError(field, "too_long", `the domain must be at most ${domainLengthMax} characters`);
  }
  const labels = domain.split(".");
  if (labels.length < 2) throw new ComposeError(field, "invalid_address", "the domain needs at least two labels");
  for (const label of labels) {
    if (label.length > domainLabelLengthMax || !domainLabelPattern.test(label)) {
      throw new ComposeError(field, "invalid_address", "the domain is not a valid host name");
    }
  }
  if (/^[0-9]+$/.test(labels.at(-1)!)) {
    throw new ComposeError(field, "invalid_address", "the domain is an IP address, not a host name");
  }
  return domain;
}
