// The browser SDK as a surface of the one process: GET and HEAD /sdk/v1/{analytics.js,
// analytics.mjs, recorder.js}. The path is stable across releases (pages embed it), so
// answers are cached briefly and revalidated by ETag; any site may load them (CORS *).
import { logInternalError } from "../http/errors.ts";
import { buildSdk, type SdkFile, type SdkFileName } from "./sdk-bundle.ts";

export const sdkPrefix = "/sdk";
export const sdkVersionPath = `${sdkPrefix}/v1/`;
export const sdkCacheControl = "public, max-age=300";

const baseHeaders = { "Access-Control-Allow-Origin": "*", "X-Content-Type-Options": "nosniff" };

export interface SdkSurface {
  serves(path: string): boolean;
  handle(request: Request, path: string): Promise<Response>;
  /** Builds the files now, so the first page does not wait for them. */
  prepare(): Promise<void>;
}

export function sdkSurface(): SdkSurface {
  let built: Promise<ReadonlyMap<SdkFileName, SdkFile>> | null = null;
  const ready = () => {
    if (!built) {
      built = buildSdk();
      // A failed build is tried again at the next request.
      built.catch(() => (built = null));
    }
    return built;
  };
  const text = (status: number, body: string, more: Record<string, string> = {}) =>
    new Response(body, { status, headers: { ...baseHeaders, "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", ...more } });

  const fileResponse = (request: Request, file: SdkFile) => {
    const headers: Record<string, string> = {
      ...baseHeaders,
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": sdkCacheControl,
      ETag: file.etag,
      Vary: "Accept-Encoding",
    };
    if (request.headers.get("if-none-match")?.split(",").some((tag) => tag.trim() === file.etag)) return new Response(null, { status: 304, headers });
    const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
    if (gzip) headers["Content-Encoding"] = "gzip";
    return new Response(request.method === "HEAD" ? null : gzip ? file.gzipped : file.body, { headers });
  };

  return {
    serves: (path) => path === sdkPrefix || path.startsWith(`${sdkPrefix}/`),
    async handle(request, path) {
      if (request.method !== "GET" && request.method !== "HEAD") return text(405, "Only GET and HEAD.", { Allow: "GET, HEAD" });
      let files: ReadonlyMap<SdkFileName, SdkFile>;
      try {
        files = await ready();
      } catch (error) {
        logInternalError(error);
        return text(500, "The SDK could not be built; the server log says why.");
      }
      const file = path.startsWith(sdkVersionPath) ? files.get(path.slice(sdkVersionPath.length) as SdkFileName) : undefined;
      return file ? fileResponse(request, file) : text(404, "No such SDK file.");
    },
    async prepare() {
      await ready();
    },
  };
}
