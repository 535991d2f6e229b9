// The browser SDK served by the one process at its stable paths: any origin may load it (CORS
// *), gzipped when accepted, cached for five minutes and revalidated by ETag; unknown files
// answer 404 and other methods 405; the console never takes /sdk.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { buildSdk } from "../../server/sdk/sdk-bundle.ts";
import { sdkCacheControl } from "../../server/sdk/sdk-surface.ts";
import { startTestService, type TestService } from "../helpers/service.ts";

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
  await service.prepareSdk();
});
afterAll(async () => {
  await service?.close();
});

const headerNames = ["content-type", "content-encoding", "cache-control", "etag", "vary", "access-control-allow-origin", "x-content-type-options"];
const answerOf = (response: Response): Record<string, unknown> => ({ status: response.status, ...Object.fromEntries(headerNames.map((name) => [name, response.headers.get(name)])) });

test("each file is served as JavaScript, plain or gzipped, with its ETag, CORS and a five-minute cache", async () => {
  const built = await buildSdk();
  expect(sdkCacheControl).toBe("public, max-age=300");
  for (const [name, file] of built) {
    const path = `/sdk/v1/${name}`;
    const expected = {
      status: 200,
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "public, max-age=300",
      etag: file.etag,
      vary: "Accept-Encoding",
      "access-control-allow-origin": "*",
      "x-content-type-options": "nosniff",
    };
    const plain = await fetch(`${service.url}${path}`, { headers: { "Accept-Encoding": "identity" }, decompress: false });
    expect([path, answerOf(plain)]).toEqual([path, { ...expected, "content-encoding": null }]);
    expect(Buffer.from(await plain.arrayBuffer()).equals(Buffer.from(file.body))).toBe(true);

    const gzipped = await fetch(`${service.url}${path}`, { headers: { "Accept-Encoding": "gzip, deflate" }, decompress: false });
    expect([path, answerOf(gzipped)]).toEqual([path, { ...expected, "content-encoding": "gzip" }]);
    expect(gunzipSync(Buffer.from(await gzipped.arrayBuffer())).equals(Buffer.from(file.body))).toBe(true);

    const revalidated = await fetch(`${service.url}${path}`, { headers: { "If-None-Match": `"other", ${file.etag}` } });
    expect([path, revalidated.status, await revalidated.text(), revalidated.headers.get("etag")]).toEqual([path, 304, "", file.etag]);

    const head = await fetch(`${service.url}${path}`, { method: "HEAD", headers: { "Accept-Encoding": "identity" } });
    expect([path, answerOf(head), await head.text()]).toEqual([path, { ...expected, "content-encoding": null }, ""]);
  }
});

test("an unknown file, another version or /sdk itself answer 404; a POST answers 405", async () => {
  for (const path of ["/sdk/v1/nope.js", "/sdk/v2/analytics.js", "/sdk", "/sdk/", "/sdk/v1/", "/sdk/v1/analytics.js/x", "/sdk/v1/%3Cscript%3E.js"]) {
    const response = await fetch(`${service.url}${path}`);
    expect([path, response.status, response.headers.get("content-type"), response.headers.get("cache-control"), await response.text()]).toEqual([
      path, 404, "text/plain; charset=utf-8", "no-store", "No such SDK file.",
    ]);
  }
  const posted = await fetch(`${service.url}/sdk/v1/analytics.js`, { method: "POST", body: "x" });
  expect([posted.status, posted.headers.get("allow"), await posted.text()]).toEqual([405, "GET, HEAD", "Only GET and HEAD."]);
});

test("the console still answers its pages, and not /sdk paths", async () => {
  const page = await fetch(`${service.url}/sdkish/page`);
  expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
});
