// Text for Slack messages. mrkdwn reads `<…>` as links and mentions (`<!channel>`, `<@U…>`,
// `<http://…|label>`) and `&…;` as entities, so every piece of data (event names, rule names,
// summaries) is escaped as Slack documents (`&` `&amp;`, `<` `&lt;`, `>` `&gt;`) before it goes
// into mrkdwn or the fallback text: a hostile event name then shows as typed and can neither
// link nor notify. plain_text (the header) is never parsed for links or mentions, so it is not
// escaped (an entity there would show as typed). Text is cut to Slack's limits with an ellipsis,
// never inside an entity.

/** Slack's limits (Block Kit reference): header text, section text, each field, fields per section. */
export const slackHeaderTextMax = 150;
export const slackSectionTextMax = 3_000;
export const slackFieldTextMax = 2_000;
export const slackFieldsMax = 10;
/** A context block's mrkdwn element: a text object (3,000 characters at most). */
export const slackContextTextMax = 3_000;
/** The top-level fallback text we send (Slack truncates past 40,000; notifications show far less). */
export const slackFallbackTextMax = 3_000;
/** The mentions of `config.to` in a message, in characters at most (the rest of `to` is left out). */
export const slackMentionsTextMax = 500;

const ellipsis = "…";

/** Data on one line: control characters and line breaks (a newline in an event name, a terminal escape) become a space. */
export const oneLine = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ");

export const escapeMrkdwn = (text: string): string => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** `data` on one line, escaped, in at most `max` characters: cut at a whole character (and never inside an entity), with an ellipsis. */
export function fitEscaped(data: string, max: number): string {
  const raw = oneLine(data);
  const escaped = escapeMrkdwn(raw);
  if (escaped.length <= max) return escaped;
  let out = "";
  for (const char of raw) {
    const piece = escapeMrkdwn(char);
    if (out.length + piece.length + ellipsis.length > max) break;
    out += piece;
  }
  return out + ellipsis;
}

/** Plain text on one line (no escaping) in at most `max` characters, cut at a whole character. */
export function fitPlain(data: string, max: number): string {
  const raw = oneLine(data);
  if (raw.length <= max) return raw;
  let out = "";
  for (const char of raw) {
    if (out.length + char.length + ellipsis.length > max) break;
    out += char;
  }
  return out + ellipsis;
}

/**
 * A `config.to` entry as Slack mrkdwn: a member id (U…, W…) a user mention, a user-group id
 * (S…) a group mention, `here` / `channel` / `everyone` (with or without @) that broadcast;
 * anything else (a name, an address) stays text, escaped, since incoming webhooks do not
 * resolve names.
 */
export function mention(entry: string): string {
  const value = entry.trim();
  if (/^[UW][A-Z0-9]{2,20}$/.test(value)) return `<@${value}>`;
  if (/^S[A-Z0-9]{2,20}$/.test(value)) return `<!subteam^${value}>`;
  const broadcast = /^@?(here|channel|everyone)$/.exec(value);
  if (broadcast) return `<!${broadcast[1]}>`;
  return escapeMrkdwn(value.startsWith("@") ? value : `@${value}`);
}

/** The mentions of `to`, space-separated, within slackMentionsTextMax (whole mentions only; those past it are left out). */
export function mentions(to: readonly string[]): string {
  let out = "";
  for (const entry of to) {
    if (entry.trim() === "") continue;
    const next = out === "" ? mention(entry) : `${out} ${mention(entry)}`;
    if (next.length > slackMentionsTextMax) break;
    out = next;
  }
  return out;
}

/** A link in mrkdwn; the URL is ours (the console's), its `|`, `<` and `>` encoded so the label cannot be changed. */
export function link(url: string, label: string): string {
  const safeUrl = url.replaceAll("|", "%7C").replaceAll("<", "%3C").replaceAll(">", "%3E").replaceAll("&", "&amp;");
  return `<${safeUrl}|${escapeMrkdwn(label)}>`;
}
