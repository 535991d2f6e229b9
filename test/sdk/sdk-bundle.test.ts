// The browser SDK as Bun's bundler builds it from web/sdk: the core stays within the issue's
// 15 KB gzipped budget and holds no rrweb code (recording is its own file, loaded lazily), the
// files are minified, and scripts/build-sdk.ts writes the npm package's dist/ from the same build.
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSdk, coreGzipBytesMax, sdkSourceDir } from "../../server/sdk/sdk-bundle.ts";
import { buildSdkPackage } from "../../scripts/build-sdk.ts";
import { libName, libVersion } from "../../web/sdk/version.ts";

/** Strings only rrweb's recorder has (its snapshot code). */
const rrwebMarkers = ["takeFullSnapshot", "rr_width", "rrweb"];

test("the core is under 15 KB gzipped, has no rrweb code, and the recorder has it", async () => {
  const files = await buildSdk();
  expect([...files.keys()].sort()).toEqual(["analytics.js", "analytics.mjs", "recorder.js"]);
  expect(coreGzipBytesMax).toBe(15 * 1024);
  for (const name of ["analytics.js", "analytics.mjs"] as const) {
    const file = files.get(name)!;
    expect([name, file.gzipped.length < coreGzipBytesMax]).toEqual([name, true]);
    const text = new TextDecoder().decode(file.body);
    expect([name, rrwebMarkers.filter((marker) => text.includes(marker))]).toEqual([name, []]);
    // Minified: no line of the source's comments survives.
    expect(text).not.toContain("// ");
  }
  const recorder = new TextDecoder().decode(files.get("recorder.js")!.body);
  expect(rrwebMarkers.filter((marker) => recorder.includes(marker))).toEqual(rrwebMarkers);
  expect(recorder).toContain("svcAnalyticsRecorder");
  // The classic script defines the global; the module exports the API.
  expect(new TextDecoder().decode(files.get("analytics.js")!.body)).toContain("svcAnalytics=");
  expect(new TextDecoder().decode(files.get("analytics.mjs")!.body)).toMatch(/export\{/);
});

test("events name the library as package.json does", () => {
  const manifest = JSON.parse(readFileSync(join(sdkSourceDir, "package.json"), "utf8"));
  expect([manifest.name, manifest.version, manifest.type, manifest.files]).toEqual(["@svc-analytics/browser", libVersion, "module", ["dist"]]);
  expect(libName).toBe("svc-analytics-js");
});

test("scripts/build-sdk.ts writes the served files and the API's type declarations", async () => {
  const dir = mkdtempSync(join(tmpdir(), "sdk-dist-"));
  try {
    expect((await buildSdkPackage(dir)).sort()).toEqual(["analytics.js", "analytics.mjs", "recorder.js"]);
    const files = await buildSdk();
    for (const [name, file] of files) expect([name, readFileSync(join(dir, name)).equals(Buffer.from(file.body))]).toEqual([name, true]);
    expect(existsSync(join(dir, "analytics.d.ts"))).toBe(true);
    expect(readFileSync(join(dir, "api.d.ts"), "utf8")).toContain("export declare function init(apiKey: string, options: InitOptions): void;");
    // Every file the package's exports name is there.
    const manifest = JSON.parse(readFileSync(join(sdkSourceDir, "package.json"), "utf8"));
    const named = [manifest.exports["."].types, manifest.exports["."].import, manifest.exports["./analytics.js"], manifest.exports["./recorder.js"]];
    expect(named.map((path: string) => path.replace("./dist/", "")).filter((name: string) => !readdirSync(dir).includes(name))).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
