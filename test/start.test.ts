// `bun server/main.ts` as `npm start` runs it: serves /health, shuts down cleanly on SIGTERM.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readUntil, serviceJscRamBytes } from "./helpers/process.ts";
import packageJson from "../package.json";

test("main starts, serves /health on PORT, stops on SIGTERM with exit code 0", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-start-"));
  const child = Bun.spawn([process.execPath, "server/main.ts"], {
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir },
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    const [, url] = await readUntil(child.stdout, /listening on (http:\/\/\S+) /);
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe("ok");
    expect(existsSync(join(dataDir, "control.sqlite"))).toBe(true);
    expect(existsSync(join(dataDir, "eu", "region.sqlite"))).toBe(true);
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
  } finally {
    child.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a bad configuration value stops start-up with a clear message and exit code 2", async () => {
  const child = Bun.spawn([process.execPath, "server/main.ts"], { env: { ...process.env, REGIONS: "eu,mars" }, stdout: "pipe", stderr: "pipe" });
  expect(await child.exited).toBe(2);
  expect(await new Response(child.stderr).text()).toBe('configuration error: REGIONS lists unknown region "mars"; known: eu, us, me, pk\n');
});

test("npm start sizes JavaScriptCore's heap for 512 MiB unless BUN_JSC_forceRAMSize is set, as the benchmarks' service does", () => {
  expect(packageJson.scripts.start).toBe(`node scripts/ensure-deps.mjs && BUN_JSC_forceRAMSize=\${BUN_JSC_forceRAMSize:-${serviceJscRamBytes}} bun server/main.ts`);
});
