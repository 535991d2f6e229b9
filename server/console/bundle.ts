// Builds the web console from its TypeScript sources in web/console with Bun's bundler, in
// memory: hashed file names (so every asset can be cached for a year), code splitting (each
// page is its own chunk, loaded when first opened) and a gzip copy of every file, made once.
import { join, resolve } from "node:path";

export const consoleSourceDir = join(import.meta.dir, "../../web/console");

/** The budget for the JavaScript a first visit must load, gzipped. */
export const initialScriptGzipBytesMax = 350 * 1024;

/** The application's entry points, built together so pages share chunks. */
const appEntries = { script: "main.tsx", styles: "styles/console.css" } as const;
/**
 * Built alone as one classic script (no imports), so the shell can run it before the first
 * paint: it sets the colour theme a person chose, with the same code the theme switch uses.
 */
const themeEntry = "theme-boot.ts";

export interface ConsoleAsset {
  body: Uint8Array;
  gzipped: Uint8Array;
  contentType: string;
}

export interface ConsoleBundle {
  /** By file name, as served under /assets/. */
  assets: ReadonlyMap<string, ConsoleAsset>;
  /** The module the shell starts, and the chunks it imports statically (preloaded). */
  appScript: string;
  appImports: readonly string[];
  /** The classic script that sets the colour theme before the first paint. */
  themeScript: string;
  stylesheet: string;
}

const contentTypes: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
};

interface MetafileOutput {
  entryPoint?: string;
  imports: { path: string; kind: string }[];
}

const fileName = (outputPath: string) => outputPath.replace(/^\.\//, "");

const hashedNames = { entry: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" };

interface BuiltPart {
  outputs: Map<string, MetafileOutput>;
  /** The output file of a source entry (a path relative to the source directory). */
  outputOf(entry: string): string;
}

async function buildPart(sourceDir: string, entries: string[], options: { splitting: boolean; format: "esm" | "iife" }, assets: Map<string, ConsoleAsset>): Promise<BuiltPart> {
  const result = await Bun.build({
    entrypoints: entries.map((path) => join(sourceDir, path)),
    tsconfig: join(sourceDir, "tsconfig.json"),
    target: "browser",
    ...options,
    minify: true,
    jsx: { runtime: "automatic", importSource: "preact", development: false },
    naming: hashedNames,
    metafile: true,
    throw: false,
  });
  if (!result.success) {
    throw new Error(`the console's sources do not build:\n${result.logs.map(String).join("\n")}`);
  }
  for (const output of result.outputs) {
    const name = fileName(output.path);
    const extension = name.slice(name.lastIndexOf(".") + 1);
    const body = new Uint8Array(await output.arrayBuffer());
    assets.set(name, { body, gzipped: Bun.gzipSync(body, { level: 9 }), contentType: contentTypes[extension] ?? "application/octet-stream" });
  }
  // The metafile names each output's source entry relative to the working directory, as esbuild's does.
  const outputs = new Map(Object.entries((result.metafile as { outputs: Record<string, MetafileOutput> }).outputs).map(([path, output]) => [fileName(path), output]));
  return {
    outputs,
    outputOf(entry) {
      const source = join(sourceDir, entry);
      const found = [...outputs].find(([, output]) => output.entryPoint !== undefined && resolve(output.entryPoint) === source);
      if (!found) throw new Error(`the console's build has no output for ${entry}`);
      return found[0];
    },
  };
}

export async function buildConsoleBundle(sourceDir = consoleSourceDir): Promise<ConsoleBundle> {
  const assets = new Map<string, ConsoleAsset>();
  const [app, theme] = await Promise.all([
    buildPart(sourceDir, Object.values(appEntries), { splitting: true, format: "esm" }, assets),
    buildPart(sourceDir, [themeEntry], { splitting: false, format: "iife" }, assets),
  ]);
  const appScript = app.outputOf(appEntries.script);
  return {
    assets,
    appScript,
    appImports: staticImports(app.outputs, appScript),
    themeScript: theme.outputOf(themeEntry),
    stylesheet: app.outputOf(appEntries.styles),
  };
}

/** Every chunk `name` loads before it runs: its static imports, theirs, and so on. */
function staticImports(outputs: ReadonlyMap<string, MetafileOutput>, name: string): string[] {
  const found = new Set<string>();
  const visit = (from: string) => {
    for (const imported of outputs.get(from)?.imports ?? []) {
      const chunk = fileName(imported.path);
      if (imported.kind !== "import-statement" || found.has(chunk)) continue;
      found.add(chunk);
      visit(chunk);
    }
  };
  visit(name);
  return [...found];
}

/** Gzipped bytes of the JavaScript the shell loads before the first page shows. */
export function initialScriptGzipBytes(bundle: ConsoleBundle): number {
  return [bundle.appScript, ...bundle.appImports, bundle.themeScript].reduce((sum, name) => sum + bundle.assets.get(name)!.gzipped.length, 0);
}
