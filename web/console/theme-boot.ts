// The shell's first script: the chosen theme is on <html> before anything is painted.
import { applyTheme, storedThemePreference } from "./theme/theme.ts";

applyTheme(storedThemePreference());
