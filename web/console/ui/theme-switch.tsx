// Light, dark, or as the system says: three toggle buttons, the chosen one pressed.
import { chooseTheme, themePreference } from "../theme/theme-state.ts";
import { themePreferences, type ThemePreference } from "../theme/theme.ts";
import { MonitorIcon, MoonIcon, SunIcon } from "./icons.tsx";

const choices: Record<ThemePreference, { label: string; Icon: typeof SunIcon }> = {
  system: { label: "System theme", Icon: MonitorIcon },
  light: { label: "Light theme", Icon: SunIcon },
  dark: { label: "Dark theme", Icon: MoonIcon },
};

export function ThemeSwitch() {
  return (
    <div class="theme-switch" role="group" aria-label="Colour theme">
      {themePreferences.map((preference) => {
        const { label, Icon } = choices[preference];
        const pressed = themePreference.value === preference;
        return (
          <button key={preference} type="button" aria-pressed={pressed} aria-label={label} title={label} class="theme-choice" onClick={() => chooseTheme(preference)}>
            <Icon />
          </button>
        );
      })}
    </div>
  );
}
