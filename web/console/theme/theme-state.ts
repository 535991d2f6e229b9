// The theme preference as application state, for the theme switch.
import { signal } from "@preact/signals";
import { applyTheme, storeThemePreference, storedThemePreference, type ThemePreference } from "./theme.ts";

export const themePreference = signal<ThemePreference>(storedThemePreference());

export function chooseTheme(preference: ThemePreference): void {
  themePreference.value = preference;
  storeThemePreference(preference);
  applyTheme(preference);
}
