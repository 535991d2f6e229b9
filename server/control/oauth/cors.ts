// Browser-based OAuth clients (an MCP client running in a web page) read the metadata,
// register, exchange and revoke from another origin. These endpoints take no cookie and
// answer nothing a cross-origin script could misuse, so every origin may call them.
import type { AnyElysia, RouteContext } from "../../http/route-table.ts";

const corsHeaders = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "Retry-After, WWW-Authenticate",
};

/** `response`, readable by a script of any origin. */
export function withCors(response: Response): Response {
  for (const [name, value] of Object.entries(corsHeaders)) response.headers.set(name, value);
  return response;
}

/** Answers the preflight of each path: the headers the browser asks for (MCP clients add their own), no credentials. */
export function mountPreflights(app: AnyElysia, paths: readonly string[]): void {
  for (const path of paths) {
    app.route("OPTIONS", path, (({ request }: RouteContext) =>
      new Response(null, {
        status: 204,
        headers: {
          ...corsHeaders,
          "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
          "Access-Control-Allow-Headers": request.headers.get("access-control-request-headers") ?? "Content-Type, Authorization",
          "Access-Control-Max-Age": "86400",
        },
      })) as never,
    );
  }
}
