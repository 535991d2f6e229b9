// Writes the browser SDK's npm package files to web/sdk/dist/ (git-ignored): the same minified
// files the service serves at /sdk/v1/, plus type declarations of the ES module's API.
// Run `bun scripts/build-sdk.ts`, then `npm publish web/sdk`.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSdk, sdkSourceDir } from "../server/sdk/sdk-bundle.ts";

const distDir = join(sdkSourceDir, "dist");

export async function buildSdkPackage(outDir = distDir): Promise<string[]> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const files = await buildSdk();
  for (const [name, file] of files) writeFileSync(join(outDir, name), file.body);
  const tsc = join(import.meta.dir, "../node_modules/.bin/tsc");
  const declarations = Bun.spawnSync([
    tsc, "-p", join(sdkSourceDir, "tsconfig.json"), "--noEmit", "false", "--declaration", "--emitDeclarationOnly",
    "--rewriteRelativeImportExtensions", "--outDir", outDir,
  ], { stdout: "pipe", stderr: "pipe" });
  if (declarations.exitCode !== 0) throw new Error(`type declarations failed:\n${declarations.stdout}${declarations.stderr}`);
  return [...files.keys()];
}

if (import.meta.main) {
  const names = await buildSdkPackage();
  console.log(`wrote ${names.join(", ")} and type declarations to ${distDir}`);
}
