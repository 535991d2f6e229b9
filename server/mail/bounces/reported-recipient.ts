/**
 * One recipient of a delivery report, as both the RFC 3464 parser and the plain-text bounce parser
 * give it, classified with `classifySmtpAnswer`.
 */
import { classifySmtpAnswer, type BounceClassification } from "./classify.ts";
import { normaliseEnhancedStatusCode, parseSmtpReply } from "../smtp-reply.ts";
import { oneLine, oneLineOrNull } from "./text.ts";

export const dsnActions = ["failed", "delayed", "delivered", "relayed", "expanded"] as const;
export type DsnAction = (typeof dsnActions)[number];

export interface ReportedRecipient {
  /** The recipient address (domain lower-cased). */
  recipient: string;
  action: DsnAction;
  /** The RFC 3463 status, normalised, or null when the report gave none that parses. */
  status: string | null;
  /** The diagnostic (the remote server's answer, codes first), one line, bounded; or null. */
  diagnostic: string | null;
  /** The bounce class of a failed or delayed recipient; null for delivered, relayed and expanded. */
  classification: BounceClassification | null;
}

/** Most characters of a diagnostic kept. */
export const diagnosticCharsMax = 1000;

/**
 * The report's `action` (or, when it is missing or unknown, the one its status class implies:
 * 5 failed, 4 delayed, 2 delivered), or null when neither says.
 */
export function reportedAction(rawAction: string | null, status: string | null): DsnAction | null {
  const action = rawAction?.trim().toLowerCase().split(/[\s(]/)[0];
  const known = dsnActions.find((candidate) => candidate === action);
  if (known) return known;
  if (status?.startsWith("5")) return "failed";
  if (status?.startsWith("4")) return "delayed";
  if (status?.startsWith("2")) return "delivered";
  return null;
}

/**
 * Builds a recipient entry from a report's action, status and diagnostic text (an SMTP answer when
 * `diagnosticIsSmtp`). The status is the MTA's verdict, so it decides permanence: a reply code or
 * enhanced code in the diagnostic that contradicts it (a 421 quoted in a report that gave up with
 * 5.4.7) is not used for classification. Without any status the action stands for one: X.0.0
 * ("other"), 5 for failed and 4 for delayed, so the diagnostic text still decides the class.
 */
export function reportedRecipient(
  recipient: string,
  action: DsnAction,
  rawStatus: string | null,
  diagnosticText: string | null,
  diagnosticIsSmtp: boolean,
): ReportedRecipient {
  const status = normaliseEnhancedStatusCode(rawStatus?.trim().split(/[\s(]/)[0]);
  const reply = diagnosticText === null ? null : diagnosticIsSmtp ? parseSmtpReply(diagnosticText) : { code: null, enhancedCode: null, text: diagnosticText };
  const diagnostic = reply === null ? null : oneLineOrNull([reply.code, reply.enhancedCode, reply.text].filter((part) => part !== null && part !== "").join(" "), diagnosticCharsMax);
  if (action === "delivered" || action === "relayed" || action === "expanded") {
    return { recipient, action, status, diagnostic, classification: null };
  }
  const verdict = status !== null && status[0] !== "2" ? status[0] : action === "failed" ? "5" : "4";
  const replyCode = reply?.code ?? null;
  const code = replyCode !== null && String(replyCode)[0] === verdict ? replyCode : null;
  const quotedEnhancedCode = reply?.enhancedCode ?? null;
  const enhancedCode =
    quotedEnhancedCode?.[0] === verdict ? quotedEnhancedCode : status?.[0] === verdict ? status : `${verdict}.0.0`;
  const classification = classifySmtpAnswer(code, enhancedCode, reply === null ? "" : oneLine(reply.text, diagnosticCharsMax));
  return { recipient, action, status, diagnostic, classification };
}
