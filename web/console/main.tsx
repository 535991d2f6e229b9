// The console's entry: reads the session, then renders the routes into the shell's #app. Every
// page, even one whose chunk failed, follows the system's theme when that is the choice.
import { render } from "preact";
import { App } from "./app.tsx";
import { loadSession } from "./state/session.ts";
import { followSystemTheme } from "./theme/theme.ts";
import { themePreference } from "./theme/theme-state.ts";

followSystemTheme(() => themePreference.value);
void loadSession();
render(<App />, document.getElementById("app")!);
