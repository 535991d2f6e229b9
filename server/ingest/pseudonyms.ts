// What a drop-in distinct id that is an email address or a phone number becomes: a keyed
// pseudonym, `psn_` and 32 hex digits (128 bits of HMAC-SHA256 under the project's secret key,
// storage/project-secrets.ts). The address is normalised first (an email address lower-cased and
// trimmed; a phone number reduced to its digits and a leading +), so every spelling of it gives
// the same pseudonym in the project, and merges keep working; other projects' keys differ, so
// the same address gives another pseudonym there. The prefix says what it is wherever it shows.
import { createHmac } from "node:crypto";
import { looksLikeEmail, looksLikePhoneNumber } from "./validate-event.ts";

export const pseudonymPrefix = "psn_";
/** Hex digits of the HMAC kept: 128 bits. */
const pseudonymHexDigits = 32;

export type ContactKind = "email" | "phone";

/** Whether `id` is an email address or a phone number as the native rules see them, or neither (null). */
export function contactKind(id: string): ContactKind | null {
  if (looksLikeEmail(id)) return "email";
  if (looksLikePhoneNumber(id)) return "phone";
  return null;
}

/** The one spelling of a contact: `Jane@Example.com ` and `jane@example.com` are one address, `+44 20 7946 0958` and `+442079460958` one number. */
export function normalisedContact(kind: ContactKind, id: string): string {
  if (kind === "email") return id.trim().toLowerCase();
  return (id.trim().startsWith("+") ? "+" : "") + id.replace(/\D/g, "");
}

/** The pseudonym of contact `id` (of `kind`) under the project's `key`. */
export function pseudonym(key: Uint8Array, kind: ContactKind, id: string): string {
  const digest = createHmac("sha256", key).update(`${kind}:${normalisedContact(kind, id)}`).digest("hex");
  return pseudonymPrefix + digest.slice(0, pseudonymHexDigits);
}
