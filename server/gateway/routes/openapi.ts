// The gateway's machine-readable contract (OpenAPI 3.1), committed beside the code as
// server/gateway/openapi.json and served as it is.
import { Elysia } from "elysia";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const openApiFile = join(import.meta.dir, "..", "openapi.json");

export const openApiRoutes = () => {
  let document: string | null = null;
  return new Elysia().get("/v1/openapi.json", () => {
    document ??= readFileSync(openApiFile, "utf8");
    return new Response(document, { headers: { "content-type": "application/json" } });
  });
};
