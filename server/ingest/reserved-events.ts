// Names starting with `$` are reserved. These are the ones the service knows; any other
// `$` name is rejected with `reserved_name` on the native API.
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
]);
