// Debian packages some tests need (chromium for the browser SDKs, strace for the durability of
// directory entries), installed with apt-get when missing. When that fails, the error says so
// and how to install the package by hand.
import { existsSync } from "node:fs";

function run(command: string[]): { ok: boolean; output: string } {
  const result = Bun.spawnSync(command, { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, stdout: "pipe", stderr: "pipe" });
  return { ok: result.exitCode === 0, output: `${result.stdout.toString()}${result.stderr.toString()}`.slice(-2000) };
}

/** How long apt waits for another install to finish before it gives up. */
const aptLockWaitSeconds = 900;

/** Installs Debian's `name` unless `path` exists already; throws with apt's output when that fails. */
export function ensureDebianPackage(name: string, path: string, neededFor: string): void {
  if (existsSync(path)) return;
  // Test files run in parallel workers may install at the same time: wait for dpkg's lock.
  const waitForLock = ["-o", `DPkg::Lock::Timeout=${aptLockWaitSeconds}`];
  const install = ["apt-get", ...waitForLock, "install", "-y", "--no-install-recommends", name];
  let attempt = run(install);
  if (!attempt.ok) {
    run(["apt-get", ...waitForLock, "update"]);
    attempt = run(install);
  }
  if (!attempt.ok || !existsSync(path)) {
    throw new Error(`${neededFor} need Debian's ${name} at ${path} and installing it failed; install it with \`apt-get install ${name}\` (as root):\n${attempt.output}`);
  }
}
