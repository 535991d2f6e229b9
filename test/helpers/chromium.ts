// Headless Chromium for the browser-SDK tests: Debian's `chromium` package, installed with
// apt-get when it is missing (the test setup's only system package). When it cannot be
// installed, the error says so and how to install it by hand.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

export const chromiumPath = "/usr/bin/chromium";

function run(command: string[]): { ok: boolean; output: string } {
  const result = Bun.spawnSync(command, { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, stdout: "pipe", stderr: "pipe" });
  return { ok: result.exitCode === 0, output: `${result.stdout.toString()}${result.stderr.toString()}`.slice(-2000) };
}

/** Installs Debian's chromium unless it is there already; throws with apt's output when that fails. */
export function ensureChromium(): void {
  if (existsSync(chromiumPath)) return;
  const install = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"];
  let attempt = run(install);
  if (!attempt.ok) {
    run(["apt-get", "update"]);
    attempt = run(install);
  }
  if (!attempt.ok || !existsSync(chromiumPath)) {
    throw new Error(`The browser tests need Debian's chromium at ${chromiumPath} and installing it failed; install it with \`apt-get install chromium\` (as root):\n${attempt.output}`);
  }
}

/**
 * Headless Chromium as this machine allows it: no sandbox (tests run as root), and no
 * background networking (the closed network refuses it, and it is not what is tested).
 */
export function launchChromium(): Promise<Browser> {
  ensureChromium();
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
