import { expect, test } from "bun:test";
import { withTimeout } from "../../server/http/timeout.ts";

test("a handler that does not answer in time gets 503 unavailable with Retry-After", async () => {
  const never = new Promise<Response>(() => {});
  const response = await withTimeout(never, 20);
  expect([response.status, response.headers.get("retry-after")]).toEqual([503, "5"]);
  expect(await response.json()).toEqual({ error: { code: "unavailable", message: "request timed out after 0 s" } });
});

test("a handler that answers in time is passed through", async () => {
  const response = await withTimeout(Promise.resolve(new Response("ok", { status: 201 })), 1000);
  expect([response.status, await response.text()]).toEqual([201, "ok"]);
});

test("the ingest surface words its time-out in the ingest shape, with CORS and Retry-After", async () => {
  const { ingestErrorResponse } = await import("../../server/ingest/app.ts");
  const response = await withTimeout(new Promise<Response>(() => {}), 20, ingestErrorResponse);
  expect([response.status, response.headers.get("retry-after")]).toEqual([503, "5"]);
  expect(response.headers.get("access-control-allow-origin")).toBe("*");
  expect(await response.json()).toEqual({ error: "request timed out after 0 s" });
});
