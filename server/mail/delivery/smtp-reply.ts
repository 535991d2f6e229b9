// An SMTP reply taken apart: its three-digit code (RFC 5321 section 4.2), its enhanced status
// code when the text starts with one (RFC 3463, "5.1.1"), and the rest of its text. What the
// codes mean for a bounce is decided elsewhere.

export type SmtpReply = { code: number | null; enhancedCode: string | null; text: string };

const replyLinePattern = /^(\d{3})(?:[ -]|$)(.*)$/;
const enhancedCodePattern = /^([245])\.(\d{1,3})\.(\d{1,3})(?=\s|$)/;

/**
 * The enhanced status code at the start of `text` ("5.1.1 User unknown" gives "5.1.1"), or
 * null. Its class must agree with the reply code's first digit when one is given, since a
 * "550 2.0.0" is a server's mistake, not a code to act on.
 */
export function parseEnhancedStatusCode(text: string, replyCode: number | null = null): string | null {
  const match = enhancedCodePattern.exec(text.trimStart());
  if (!match) return null;
  if (replyCode !== null && String(replyCode)[0] !== match[1]) return null;
  return `${match[1]}.${Number(match[2])}.${Number(match[3])}`;
}

/** A reply of one or more lines ("250-…\n250 …"); text that does not start with a code gives code null. */
export function parseSmtpReply(reply: string): SmtpReply {
  const lines = reply.split(/\r?\n/).filter((line) => line.length);
  const first = replyLinePattern.exec(lines[0] ?? "");
  if (!first) return { code: null, enhancedCode: null, text: lines.join("\n") };
  const code = Number(first[1]);
  const enhancedCode = parseEnhancedStatusCode(first[2] ?? "", code);
  const texts = lines.map((line) => {
    const rest = replyLinePattern.exec(line)?.[2] ?? line;
    return enhancedCode && parseEnhancedStatusCode(rest, code) ? rest.trimStart().replace(enhancedCodePattern, "").trimStart() : rest;
  });
  return { code, enhancedCode, text: texts.join("\n") };
}

/** 2xx and 3xx go on, 4xx is temporary, 5xx is permanent; a reply without a code is none of these. */
export function replyClass(reply: SmtpReply): "positive" | "temporary" | "permanent" | null {
  if (reply.code === null) return null;
  if (reply.code >= 200 && reply.code < 400) return "positive";
  if (reply.code >= 400 && reply.code < 500) return "temporary";
  if (reply.code >= 500 && reply.code < 600) return "permanent";
  return null;
}
