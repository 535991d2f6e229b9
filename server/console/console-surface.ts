// The web console as a surface of the one process: GET and HEAD of every path outside the API
// namespaces answer the HTML shell (the browser's router picks the page), /assets/* the built
// files. The bundle is built on the first request (or when prepare() asks), once per process.
import { logInternalError } from "../http/errors.ts";
import { buildConsoleBundle, type ConsoleAsset, type ConsoleBundle } from "./bundle.ts";
import { securityHeaders } from "./security-headers.ts";
import { assetsPath, renderShell } from "./shell.ts";

/** Hashed names change with their content, so a browser may keep each file for good. */
export const assetCacheControl = "public, max-age=31536000, immutable";
/** The shell names the current files: always revalidated. */
export const shellCacheControl = "no-cache";

export interface ConsoleSurfaceOptions {
  /** First path segments that belong to the APIs (`app`, `v1`, `region`, …): never console pages. */
  apiSegments: ReadonlySet<string>;
  /** The origin of the URLs the control plane hands out (PUBLIC_URL), which pages may call. */
  publicOrigin: () => string;
}

export interface ConsoleSurface {
  serves(method: string, path: string): boolean;
  handle(request: Request, path: string): Promise<Response>;
  /** Builds the bundle now, so the first visitor does not wait for it. */
  prepare(): Promise<void>;
}

interface Built {
  bundle: ConsoleBundle;
  shell: string;
}

export function consoleSurface(options: ConsoleSurfaceOptions): ConsoleSurface {
  let built: Promise<Built> | null = null;
  const ready = () => {
    if (!built) {
      built = buildConsoleBundle().then((bundle) => ({ bundle, shell: renderShell(bundle) }));
      // A failed build is tried again at the next request (the sources may have been fixed).
      built.catch(() => (built = null));
    }
    return built;
  };
  const headers = (more: Record<string, string>) => ({ ...securityHeaders(options.publicOrigin()), ...more });
  const text = (status: number, body: string) => new Response(body, { status, headers: headers({ "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" }) });

  const assetResponse = (request: Request, asset: ConsoleAsset) => {
    const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
    return new Response(gzip ? asset.gzipped : asset.body, {
      headers: headers({
        "Content-Type": asset.contentType,
        "Cache-Control": assetCacheControl,
        Vary: "Accept-Encoding",
        ...(gzip ? { "Content-Encoding": "gzip" } : {}),
      }),
    });
  };

  return {
    serves(method, path) {
      if (method !== "GET" && method !== "HEAD") return false;
      return !options.apiSegments.has(path.split("/", 2)[1]!);
    },
    async handle(request, path) {
      let current: Built;
      try {
        current = await ready();
      } catch (error) {
        logInternalError(error);
        return text(500, "The console could not be built; the server log says why.");
      }
      if (path.startsWith(`${assetsPath}/`)) {
        const asset = current.bundle.assets.get(path.slice(assetsPath.length + 1));
        return asset ? assetResponse(request, asset) : text(404, "No such asset.");
      }
      return new Response(current.shell, { headers: headers({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": shellCacheControl }) });
    },
    async prepare() {
      await ready();
    },
  };
}
