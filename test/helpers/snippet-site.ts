// A customer's web page that runs a code snippet exactly as the console shows it: the snippet
// (ES module code importing npm packages such as posthog-js) is bundled for the browser by
// Bun's bundler, as a customer's build would, and served with a page on its own origin.
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const repositoryModules = join(import.meta.dir, "../../node_modules");

export interface SnippetSite {
  url: string;
  stop(): void;
}

export async function serveSnippetSite(snippet: string, title = "Acme"): Promise<SnippetSite> {
  const dir = mkdtempSync(join(tmpdir(), "snippet-site-"));
  try {
    // The snippet's imports resolve from the repository's packages, as from the customer's.
    symlinkSync(repositoryModules, join(dir, "node_modules"));
    writeFileSync(join(dir, "app.js"), snippet);
    const built = await Bun.build({ entrypoints: [join(dir, "app.js")], target: "browser", format: "esm" });
    if (!built.success) throw new AggregateError(built.logs, "the snippet does not build");
    const script = await built.outputs[0]!.text();
    const html = `<!doctype html><html><head><title>${title}</title><script type="module" src="/app.js"></script></head><body><h1>${title}</h1></body></html>`;
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (request) =>
        new URL(request.url).pathname === "/app.js"
          ? new Response(script, { headers: { "content-type": "application/javascript" } })
          : new Response(html, { headers: { "content-type": "text/html" } }),
    });
    return { url: server.url.href, stop: () => server.stop(true) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
