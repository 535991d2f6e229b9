/**
 * Classifies one SMTP answer (or the lack of one) into a bounce class a person understands and
 * the action the mail service takes. Order of evidence:
 *
 * 1. the enhanced status code (RFC 3463), when it names a class outright (`definitiveEnhancedCodes`:
 *    5.1.1 unknown mailbox, 5.2.2 mailbox full, 5.7.26 unauthenticated, …);
 * 2. the reply text, against phrases of the big providers (`textRules`); under a security/policy
 *    code (X.7.X) only the sender-side classes can match, so a policy answer never suppresses;
 * 3. the enhanced code's subject (`enhancedCodeFallbacks`, `enhancedSubjectFallbacks`);
 * 4. vague phrases ("try again later", `vagueTextRules`), when there is no enhanced code;
 * 5. the reply code (`replyCodeFallbacks`), else other_permanent for 5xx and other_temporary for 4xx.
 *
 * Permanence comes from the reply code, else from the enhanced code's class. A hard bounce of an
 * unknown mailbox, a disabled mailbox or a missing domain suppresses the address; any other hard
 * bounce takes no action (blocked_as_spam and policy blame our content, IP or authentication, not
 * the address); soft bounces are retried. A full mailbox is soft even under 552 / 5.2.2, because
 * providers answer that for a mailbox that empties again: it is retried and the delivery's retry
 * schedule ends it.
 */
import {
  alwaysSoftClasses,
  bounceClassExplanations,
  definitiveEnhancedCodes,
  enhancedCodeFallbacks,
  enhancedSubjectFallbacks,
  policySubjectClasses,
  replyCodeFallbacks,
  suppressingClasses,
  textRules,
  vagueTextRules,
  type BounceClass,
  type TextRule,
} from "./classify-rules.ts";
import { normaliseEnhancedStatusCode, normaliseReplyCode, parseSmtpReply } from "../smtp-reply.ts";
import { oneLine } from "./text.ts";

export type { BounceClass } from "./classify-rules.ts";
export { bounceClasses } from "./classify-rules.ts";

export type BounceKind = "hard" | "soft";
export type BounceAction = "suppress" | "retry" | "none";

export interface BounceClassification {
  kind: BounceKind;
  class: BounceClass;
  /** The enhanced status code used, normalised (`"5.1.1"`), or null when the answer had none. */
  enhancedCode: string | null;
  /** One line for a person: what the class means, then the remote answer, bounded. */
  reason: string;
  action: BounceAction;
}

/** Most characters of the reply text the phrase rules look at. */
export const classifiedTextCharsMax = 2000;
/** Most characters of the remote answer quoted in `reason`. */
export const quotedAnswerCharsMax = 200;

type Permanence = "temporary" | "permanent";

/**
 * Classifies an SMTP answer to a delivery attempt. `code` is the reply code (e.g. 550), `enhanced`
 * the RFC 3463 code (e.g. "5.1.1"), `text` the reply text; each may be missing or malformed. The
 * text may still start with the codes (`"550 5.1.1 User unknown"`, or a multi-line Gmail answer):
 * they are read from it when the arguments lack them. Only failures are classified: a reply code
 * outside 400–599 and an enhanced code of class 2 count as absent.
 *
 * With neither code the attempt got no SMTP answer (no MX reachable, refused, TLS failure,
 * timeout): the result is connection_failed, soft. For a domain that DNS says does not exist,
 * pass the enhanced code 5.1.2 as Postfix does, which suppresses.
 */
export function classifySmtpAnswer(
  code: number | null | undefined,
  enhanced: string | null | undefined,
  text: string | null | undefined,
): BounceClassification {
  const reply = parseSmtpReply(text ?? "");
  const replyCode = failureReplyCode(normaliseReplyCode(code) ?? reply.code);
  const enhancedCode = failureEnhancedCode(normaliseEnhancedStatusCode(enhanced)) ?? failureEnhancedCode(reply.enhancedCode);
  const remoteText = oneLine(reply.text, classifiedTextCharsMax);
  const quoted = quoteAnswer(replyCode, enhancedCode, remoteText);
  if (replyCode === null && enhancedCode === null) {
    const reason = reasonFor("connection_failed", "Detail", quoted);
    return { kind: "soft", class: "connection_failed", enhancedCode: null, reason, action: "retry" };
  }
  const permanence: Permanence = (replyCode !== null ? replyCode >= 500 : enhancedCode!.startsWith("5")) ? "permanent" : "temporary";
  const bounceClass = classOf(replyCode, enhancedCode, remoteText, permanence);
  const kind: BounceKind = permanence === "permanent" && !alwaysSoftClasses.has(bounceClass) ? "hard" : "soft";
  const action: BounceAction = kind === "soft" ? "retry" : suppressingClasses.has(bounceClass) ? "suppress" : "none";
  return { kind, class: bounceClass, enhancedCode, reason: reasonFor(bounceClass, "Remote answer", quoted), action };
}

function classOf(replyCode: number | null, enhancedCode: string | null, text: string, permanence: Permanence): BounceClass {
  const subjectDetail = enhancedCode === null ? null : enhancedCode.slice(enhancedCode.indexOf(".") + 1);
  const subject = subjectDetail === null ? null : subjectDetail.slice(0, subjectDetail.indexOf("."));
  const definitive = subjectDetail === null ? undefined : definitiveEnhancedCodes[subjectDetail];
  if (definitive) return definitive;
  const byText = matchText(textRules, text, permanence, subject);
  if (byText) return byText;
  const fallback =
    (subjectDetail === null ? undefined : enhancedCodeFallbacks[subjectDetail]) ??
    (subject === null ? undefined : enhancedSubjectFallbacks[subject]);
  if (fallback) return fallback[permanence];
  const byVagueText = matchText(vagueTextRules, text, permanence, subject);
  if (byVagueText) return byVagueText;
  const byReplyCode = replyCode === null ? undefined : replyCodeFallbacks[replyCode];
  if (byReplyCode) return byReplyCode;
  return permanence === "permanent" ? "other_permanent" : "other_temporary";
}

function matchText(rules: readonly TextRule[], text: string, permanence: Permanence, subject: string | null): BounceClass | undefined {
  for (const rule of rules) {
    if (rule.only !== undefined && rule.only !== permanence) continue;
    if (subject === "7" && !policySubjectClasses.has(rule.class)) continue;
    if (rule.pattern.test(text)) return rule.class;
  }
  return undefined;
}

function failureReplyCode(code: number | null): number | null {
  return code !== null && code >= 400 ? code : null;
}

function failureEnhancedCode(code: string | null): string | null {
  return code !== null && !code.startsWith("2") ? code : null;
}

function quoteAnswer(replyCode: number | null, enhancedCode: string | null, text: string): string {
  return oneLine([replyCode, enhancedCode, text].filter((part) => part !== null && part !== "").join(" "), quotedAnswerCharsMax);
}

function reasonFor(bounceClass: BounceClass, label: string, quoted: string): string {
  const explanation = bounceClassExplanations[bounceClass];
  return quoted === "" ? `${explanation}.` : `${explanation}. ${label}: ${quoted}`;
}
