// What a webhook endpoint's URL may be: http or https, at most 2,048 characters, without
// credentials (they would be shown back in every listing) and without control characters or
// spaces (the URL parser would silently drop a CR or LF instead of refusing it).
import { validation } from "../../http/errors.ts";

export const webhookUrlLengthMax = 2_048;

/** The URL as it will be posted to (normalised by the URL parser), else a 400 saying why not. */
export function checkWebhookUrl(raw: string): string {
  const quoted = JSON.stringify(raw.slice(0, 100));
  if (raw.length > webhookUrlLengthMax) throw validation(`url: at most ${webhookUrlLengthMax} characters`);
  if (/[\u0000-\u0020\u007f-\u00a0\u2028\u2029]/.test(raw)) throw validation(`url: ${quoted} contains spaces or control characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validation(`url: ${quoted} is not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw validation("url: must be an http:// or https:// URL");
  if (url.username !== "" || url.password !== "") throw validation("url: must not contain a user name or password (authenticate the request by its signature)");
  if (url.href.length > webhookUrlLengthMax) throw validation(`url: at most ${webhookUrlLengthMax} characters`);
  return url.href;
}
