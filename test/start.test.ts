// `bun server/main.ts` as `npm start` runs it: serves /health, shuts down cleanly on SIGTERM.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readUntil, serviceJscRamBytes } from "./helpers/process.ts";
import { ManifestLog, manifestLogFileName } from "../storage/manifest.ts";
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

test("a damaged manifest log stops start-up with a message naming the file, exit code 2, and no file removed", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-damaged-"));
  try {
    const regionDir = join(dataDir, "eu");
    mkdirSync(regionDir);
    const log = ManifestLog.open(regionDir);
    log.commit({ walSealedThrough: { file: 1, offset: 0 } });
    log.commit({ walSealedThrough: { file: 1, offset: 0 } });
    log.close();
    const logPath = join(regionDir, manifestLogFileName);
    const bytes = readFileSync(logPath);
    bytes[10]! ^= 0xff;
    writeFileSync(logPath, bytes);
    const child = Bun.spawn([process.execPath, "server/main.ts"], { env: { ...process.env, PORT: "0", DATA_DIR: dataDir, REGIONS: "eu" }, stdout: "pipe", stderr: "pipe" });
    expect(await child.exited).toBe(2);
    expect(await new Response(child.stderr).text()).toBe(
      `storage error: ${logPath} is damaged at byte 0 of ${bytes.length}, before intact changes (up to change 2). ` +
        "The store does not open on it: the files those changes name would be deleted. Restore the file from a backup, " +
        "or move it away to start from the last checkpoint (files named only since then are then removed)\n",
    );
    expect(new Uint8Array(readFileSync(logPath))).toEqual(new Uint8Array(bytes));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test("npm start sizes JavaScriptCore's heap for 512 MiB unless BUN_JSC_forceRAMSize is set, as the benchmarks' service does", () => {
  expect(packageJson.scripts.start).toBe(`node scripts/ensure-deps.mjs && BUN_JSC_forceRAMSize=\${BUN_JSC_forceRAMSize:-${serviceJscRamBytes}} bun server/main.ts`);
});
