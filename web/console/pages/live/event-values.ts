// An event's values as text: strings as they are, everything else as its JSON (so `"1"` and `1`
// read differently only by their quotes in the raw JSON, and objects stay readable).
export const valueText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value) ?? "");

/**
 * Whether any property key or value of `properties` contains `text`, ignoring letter case. The
 * live route matches property values only exactly, so the page checks "contains" itself, on the
 * events it received.
 */
export function propertiesContain(properties: Record<string, unknown>, text: string): boolean {
  const wanted = text.toLocaleLowerCase();
  return Object.entries(properties).some(([key, value]) => key.toLocaleLowerCase().includes(wanted) || valueText(value).toLocaleLowerCase().includes(wanted));
}
