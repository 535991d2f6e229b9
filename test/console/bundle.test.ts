// The console's bundle as Bun's bundler builds it from web/console: the JavaScript a first
// visit loads stays within the budget, pages are chunks of their own (loaded when
// opened), and names are content hashes, so the same sources give the same names (a browser's
// cached files stay valid across restarts).
import { expect, test } from "bun:test";
import { buildConsoleBundle, initialScriptGzipBytes, initialScriptGzipBytesMax } from "../../server/console/bundle.ts";

const hashedName = /^[a-z-]+-[a-z0-9]{8}\.(js|css)$/;

test("the initial JavaScript is under 350 KB gzipped, pages load lazily, and names are stable content hashes", async () => {
  const bundle = await buildConsoleBundle();
  expect(initialScriptGzipBytesMax).toBe(350 * 1024);
  expect(initialScriptGzipBytes(bundle)).toBeLessThan(initialScriptGzipBytesMax);

  const names = [...bundle.assets.keys()];
  expect(names.filter((name) => !hashedName.test(name))).toEqual([]);
  const initial = new Set([bundle.appScript, ...bundle.appImports, bundle.themeScript]);
  const pages = names.filter((name) => /^(login|signup|project-setup|new-project)-/.test(name));
  expect(pages.map((name) => name.replace(/-[a-z0-9]{8}\.js$/, "")).sort()).toEqual(["login", "new-project", "project-setup", "signup"]);
  expect(pages.filter((name) => initial.has(name))).toEqual([]);

  const again = await buildConsoleBundle();
  expect([...again.assets.keys()].sort()).toEqual(names.sort());
});
