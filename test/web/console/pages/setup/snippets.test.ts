// The setup page's snippets, whole: each SDK pointed at the ingest URL with the key, Segment's
// with the region's prefix in `path` (analytics-node resolves it against `host`).
import { expect, test } from "bun:test";
import { snippet, snippetKinds } from "../../../../../web/console/pages/setup/snippets.ts";

const target = { key: "svc_pk_eu_production_abcdefghijklmnopqrstuv", ingestUrl: "https://analytics.example.com/base/ingest/eu" };

test("every snippet, for a service under a path prefix", () => {
  expect(Object.fromEntries(snippetKinds.map(({ id }) => [id, snippet(id, target)]))).toEqual({
    "posthog-js": [
      "// npm install posthog-js",
      'import posthog from "posthog-js";',
      "",
      'posthog.init("svc_pk_eu_production_abcdefghijklmnopqrstuv", {',
      '  api_host: "https://analytics.example.com/base/ingest/eu",',
      "  disable_session_recording: true,",
      "  disable_surveys: true,",
      "});",
      'posthog.capture("signed_up", { plan: "pro" });',
    ].join("\n"),
    "posthog-node": [
      "// npm install posthog-node",
      'import { PostHog } from "posthog-node";',
      "",
      'const posthog = new PostHog("svc_pk_eu_production_abcdefghijklmnopqrstuv", { host: "https://analytics.example.com/base/ingest/eu" });',
      'posthog.capture({ distinctId: "user-42", event: "signed_up", properties: { plan: "pro" } });',
      "await posthog.shutdown();",
    ].join("\n"),
    segment: [
      "// npm install @segment/analytics-node",
      'import { Analytics } from "@segment/analytics-node";',
      "",
      "const analytics = new Analytics({",
      '  writeKey: "svc_pk_eu_production_abcdefghijklmnopqrstuv",',
      '  host: "https://analytics.example.com",',
      '  path: "/base/ingest/eu/v1/batch",',
      "});",
      'analytics.track({ userId: "user-42", event: "Signed Up", properties: { plan: "pro" } });',
      "await analytics.closeAndFlush();",
    ].join("\n"),
    curl: [
      "curl -X POST 'https://analytics.example.com/base/ingest/eu/capture/' \\",
      "  -H 'Content-Type: application/json' \\",
      `  -d '{"api_key":"svc_pk_eu_production_abcdefghijklmnopqrstuv","event":"hello_world","distinct_id":"user-42","properties":{"source":"curl"}}'`,
    ].join("\n"),
  });
});
