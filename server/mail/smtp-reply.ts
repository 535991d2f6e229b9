/**
 * The pieces of an SMTP reply (RFC 5321 section 4.2): the three-digit reply code, the enhanced
 * status code (RFC 3463 `class.subject.detail`, RFC 2034 puts it first on every line) and the text,
 * as the delivery reads a server's answer and as a DSN's Diagnostic-Code quotes one. What the
 * codes mean for a bounce is decided in bounces/.
 */

/** Most characters of a reply we look at; real replies are a few lines of at most 512 octets. */
export const replyScanCharsMax = 4096;

/** An RFC 3463 code: class 2, 4 or 5; subject and detail of one to three digits. */
const enhancedCodeShape = /^([245])\.(\d{1,3})\.(\d{1,3})$/;

/**
 * `raw` as `class.subject.detail` without leading zeros (`"5.01.001"` → `"5.1.1"`), or null when it
 * is not an RFC 3463 code.
 */
export function normaliseEnhancedStatusCode(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const match = enhancedCodeShape.exec(raw.trim());
  if (!match) return null;
  const [, statusClass, subject, detail] = match;
  return `${statusClass}.${Number(subject)}.${Number(detail)}`;
}

/** A reply code, or null when `raw` is not an integer from 200 to 599. */
export function normaliseReplyCode(raw: number | string | null | undefined): number | null {
  if (raw === null || raw === undefined) return null;
  const code = typeof raw === "number" ? raw : /^\s*\d{3}\s*$/.test(raw) ? Number(raw) : Number.NaN;
  return Number.isInteger(code) && code >= 200 && code <= 599 ? code : null;
}

export interface SmtpReply {
  code: number | null;
  enhancedCode: string | null;
  /** The reply text without the codes, the lines of a multi-line reply joined by spaces. */
  text: string;
}

const replyLine = /^\s*(\d{3})(?:[ -]|$)(.*)$/;
const leadingEnhancedCode = /^\s*([245]\.\d{1,3}\.\d{1,3})(?=\s|$)\s*(.*)$/s;

/**
 * Splits a reply as an SMTP client or a DSN's `Diagnostic-Code` gives it:
 * `"550-5.1.1 The email account…\n550 5.1.1 …"`, `"452 4.2.2 Mailbox full"`, `"5.7.1 Blocked"` or
 * bare text. A line that repeats the first line's code has its codes removed, so a Gmail answer
 * reads as one sentence.
 */
export function parseSmtpReply(raw: string): SmtpReply {
  const lines = raw.slice(0, replyScanCharsMax).split(/\r\n|\r|\n/);
  const first = replyLine.exec(lines[0] ?? "");
  const code = first ? normaliseReplyCode(first[1]) : null;
  const texts: string[] = [];
  let enhancedCode: string | null = null;
  for (const line of lines) {
    const coded = code === null ? null : replyLine.exec(line);
    let rest = coded && Number(coded[1]) === code ? (coded[2] ?? "") : line;
    const enhanced = leadingEnhancedCode.exec(rest);
    // Its class must agree with the reply code's first digit: a "550 2.0.0" is a server's mistake, not a code to act on.
    if (enhanced && (code === null || enhanced[1]![0] === String(code)[0])) {
      enhancedCode ??= normaliseEnhancedStatusCode(enhanced[1]);
      rest = enhanced[2] ?? "";
    }
    texts.push(rest.trim());
  }
  return { code, enhancedCode, text: texts.filter((text) => text !== "").join(" ") };
}

/** 2xx and 3xx go on, 4xx is temporary, 5xx is permanent; a reply without a code is none of these. */
export function replyClass(reply: SmtpReply): "positive" | "temporary" | "permanent" | null {
  if (reply.code === null) return null;
  if (reply.code >= 200 && reply.code < 400) return "positive";
  if (reply.code >= 400 && reply.code < 500) return "temporary";
  if (reply.code >= 500 && reply.code < 600) return "permanent";
  return null;
}
