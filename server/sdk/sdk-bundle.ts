// Builds the browser SDK from its TypeScript sources in web/sdk with Bun's bundler, minified,
// in memory: the core as a classic script (window.svcAnalytics) and as an ES module, and the
// recording module, which the core loads only when recording is on. Also used by
// scripts/build-sdk.ts to write the npm package's dist/.
import { join } from "node:path";

export const sdkSourceDir = join(import.meta.dir, "../../web/sdk");

/** The budget for the core (without recording), gzipped. */
export const coreGzipBytesMax = 15 * 1024;

/** Each served file: its source entry and the format it is built in. */
const files = {
  "analytics.js": { entry: "global.ts", format: "iife" },
  "analytics.mjs": { entry: "analytics.ts", format: "esm" },
  "recorder.js": { entry: "recorder.ts", format: "iife" },
} as const;

export type SdkFileName = keyof typeof files;
export const sdkFileNames = Object.keys(files) as SdkFileName[];

export interface SdkFile {
  body: Uint8Array;
  gzipped: Uint8Array;
  /** A strong validator of the content (the path is stable, the content changes with the SDK). */
  etag: string;
}

async function buildFile(sourceDir: string, entry: string, format: "iife" | "esm"): Promise<Uint8Array<ArrayBuffer>> {
  const result = await Bun.build({
    entrypoints: [join(sourceDir, entry)],
    tsconfig: join(sourceDir, "tsconfig.json"),
    target: "browser",
    format,
    minify: true,
    throw: false,
  });
  if (!result.success) throw new Error(`the SDK's ${entry} does not build:\n${result.logs.map(String).join("\n")}`);
  return new Uint8Array(await result.outputs[0]!.arrayBuffer()) as Uint8Array<ArrayBuffer>;
}

export async function buildSdk(sourceDir = sdkSourceDir): Promise<ReadonlyMap<SdkFileName, SdkFile>> {
  const built = await Promise.all(sdkFileNames.map(async (name) => {
    const { entry, format } = files[name];
    const body = await buildFile(sourceDir, entry, format);
    const etag = `"${new Bun.CryptoHasher("sha256").update(body).digest("hex").slice(0, 32)}"`;
    return [name, { body, gzipped: Bun.gzipSync(body, { level: 9 }), etag }] as const;
  }));
  return new Map(built);
}
