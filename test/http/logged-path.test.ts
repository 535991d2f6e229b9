import { expect, test } from "bun:test";
import { loggedPath } from "../../server/http/logged-path.ts";

test("a revenue webhook's path token never reaches the request log; other paths are written as they are", () => {
  expect([
    loggedPath("/ingest/eu/wh/app_store/AbCdEf0123456789_-tokenvalue"),
    loggedPath("/ingest/us/wh/stripe/t0k3n/extra"),
    loggedPath("/ingest/eu/wh/"),
    loggedPath("/ingest/eu/batch"),
    loggedPath("/v1/projects/019a/integrations"),
  ]).toEqual([
    "/ingest/eu/wh/app_store/[token]",
    "/ingest/us/wh/stripe/[token]/extra",
    "/ingest/eu/wh/",
    "/ingest/eu/batch",
    "/v1/projects/019a/integrations",
  ]);
});
