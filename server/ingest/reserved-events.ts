// Names starting with `$` are reserved. These are the ones the service knows; any other
// `$` name is rejected with `reserved_name` on the native API. The revenue events (written by
// the payment-provider webhooks) are known too, so a project that bills by itself can send them.
import { revenueEventNames } from "../../engine/revenue-events.ts";

export const knownReservedEvents: ReadonlySet<string> = new Set([
  "$identify",
  "$create_alias",
  "$groupidentify",
  "$set",
  "$pageview",
  "$screen",
  "$pageleave",
  "$autocapture",
  "$exception",
  "$feature_flag_called",
  "$rageclick",
  "$opt_in",
  ...revenueEventNames,
]);

/**
 * A drop-in event's name as stored: names the service knows (and any name without `$`) as they
 * are; another `$` name under the source's prefix (`posthog:$web_vitals`), since a `$` name of
 * the service's own must be one it knows.
 */
export function vendorEventName(prefix: string, name: string): string {
  if (!name.startsWith("$") || knownReservedEvents.has(name)) return name;
  return `${prefix}${name}`;
}
