// Copy-ready code that sends a project's events: each SDK pointed at the region's ingest URL
// with the project's public key (docs/drop-in.md says how each one is read).

export interface SnippetTarget {
  /** The public key (svc_pk_…): it can only send events, so it may ship in browser code. */
  key: string;
  /** The region's ingest URL, `{PUBLIC_URL}/ingest/{region}`. */
  ingestUrl: string;
}

export type SnippetKind = "posthog-js" | "posthog-node" | "segment" | "curl";

export const snippetKinds: readonly { id: SnippetKind; label: string }[] = [
  { id: "posthog-js", label: "posthog-js" },
  { id: "posthog-node", label: "posthog-node" },
  { id: "segment", label: "Segment analytics-node" },
  { id: "curl", label: "curl" },
];

const quoted = (text: string) => JSON.stringify(text);

/** The one event the curl snippet sends, as PostHog's capture format. */
function curlEvent(key: string): string {
  return JSON.stringify({ api_key: key, event: "hello_world", distinct_id: "user-42", properties: { source: "curl" } });
}

export function snippet(kind: SnippetKind, { key, ingestUrl }: SnippetTarget): string {
  switch (kind) {
    case "posthog-js":
      return [
        "// npm install posthog-js",
        'import posthog from "posthog-js";',
        "",
        `posthog.init(${quoted(key)}, {`,
        `  api_host: ${quoted(ingestUrl)},`,
        "  disable_session_recording: true,",
        "  disable_surveys: true,",
        "});",
        'posthog.capture("signed_up", { plan: "pro" });',
      ].join("\n");
    case "posthog-node":
      return [
        "// npm install posthog-node",
        'import { PostHog } from "posthog-node";',
        "",
        `const posthog = new PostHog(${quoted(key)}, { host: ${quoted(ingestUrl)} });`,
        'posthog.capture({ distinctId: "user-42", event: "signed_up", properties: { plan: "pro" } });',
        "await posthog.shutdown();",
      ].join("\n");
    case "segment": {
      // analytics-node resolves `path` against `host`, so the region's prefix goes in `path`.
      const url = new URL(ingestUrl);
      return [
        "// npm install @segment/analytics-node",
        'import { Analytics } from "@segment/analytics-node";',
        "",
        "const analytics = new Analytics({",
        `  writeKey: ${quoted(key)},`,
        `  host: ${quoted(url.origin)},`,
        `  path: ${quoted(`${url.pathname.replace(/\/$/, "")}/v1/batch`)},`,
        "});",
        'analytics.track({ userId: "user-42", event: "Signed Up", properties: { plan: "pro" } });',
        "await analytics.closeAndFlush();",
      ].join("\n");
    }
    case "curl":
      return [`curl -X POST '${ingestUrl}/capture/' \\`, "  -H 'Content-Type: application/json' \\", `  -d '${curlEvent(key)}'`].join("\n");
  }
}
