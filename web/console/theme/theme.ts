// The colour theme: a person's choice (light, dark, or the system's) is kept in localStorage,
// and the page carries the resolved theme as <html data-theme>, which the design tokens follow.
// This module has no imports, so the shell's first script can run it before the first paint.

export type ThemePreference = "system" | "light" | "dark";
export const themePreferences: readonly ThemePreference[] = ["system", "light", "dark"];

const storageKey = "svc-console-theme";
const darkQuery = "(prefers-color-scheme: dark)";

const isPreference = (value: unknown): value is ThemePreference => themePreferences.includes(value as ThemePreference);

export function storedThemePreference(): ThemePreference {
  try {
    const stored = localStorage.getItem(storageKey);
    return isPreference(stored) ? stored : "system";
  } catch {
    // Storage can be switched off; the system's theme is then the choice.
    return "system";
  }
}

export function storeThemePreference(preference: ThemePreference): void {
  try {
    localStorage.setItem(storageKey, preference);
  } catch {
    // Not kept across visits when storage is off; the page still switches.
  }
}

export function applyTheme(preference: ThemePreference): void {
  const dark = preference === "dark" || (preference === "system" && matchMedia(darkQuery).matches);
  document.documentElement.dataset.theme = dark ? "dark" : "light";
}

/** Re-applies the preference whenever the system switches between light and dark. */
export function followSystemTheme(preference: () => ThemePreference): void {
  matchMedia(darkQuery).addEventListener("change", () => applyTheme(preference()));
}
