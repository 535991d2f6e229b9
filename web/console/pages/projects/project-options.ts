// The choices a new project offers: every IANA time zone and ISO 4217 currency this browser
// knows (the control plane checks them against its own lists), each named for people.

export const defaultCurrency = "USD";

export function timeZoneOptions(): string[] {
  const zones = Intl.supportedValuesOf("timeZone");
  return zones.includes("UTC") ? zones : ["UTC", ...zones];
}

/** The browser's own time zone: where the person most likely reads their charts. */
export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

export function currencyOptions(): { code: string; label: string }[] {
  const names = new Intl.DisplayNames(undefined, { type: "currency" });
  return Intl.supportedValuesOf("currency").map((code) => ({ code, label: `${code} · ${names.of(code) ?? code}` }));
}
