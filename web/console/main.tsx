// The console's entry: reads the session, then renders the routes into the shell's #app.
import { render } from "preact";
import { App } from "./app.tsx";
import { loadSession } from "./state/session.ts";

void loadSession();
render(<App />, document.getElementById("app")!);
