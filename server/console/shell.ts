// The one HTML page every console path answers: it names the hashed stylesheet and scripts
// and holds no inline code, so the Content-Security-Policy can forbid inline scripts and styles.
import type { ConsoleBundle } from "./bundle.ts";

const consoleTitle = "svc-analytics";
export const assetsPath = "/assets";

export function renderShell(bundle: ConsoleBundle): string {
  const asset = (name: string) => `${assetsPath}/${name}`;
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${consoleTitle}</title>`,
    `<link rel="stylesheet" href="${asset(bundle.stylesheet)}">`,
    ...bundle.appImports.map((name) => `<link rel="modulepreload" href="${asset(name)}">`),
    // A classic script, so it runs before the first paint: the theme a person chose shows at once.
    `<script src="${asset(bundle.themeScript)}"></script>`,
    `<script type="module" src="${asset(bundle.appScript)}"></script>`,
    "</head>",
    "<body>",
    '<div id="app"></div>',
    "<noscript>The console needs JavaScript. The APIs it uses are described at /openapi.json.</noscript>",
    "</body>",
    "</html>",
  ].join("\n");
}
