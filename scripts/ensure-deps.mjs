// Runs under plain Node before anything else, so a fresh clone needs only Node.js and npm:
// installs the locked dependencies (Bun itself comes from the npm registry as the `bun`
// package) whenever node_modules is missing or older than package-lock.json.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { execSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const lockPath = join(root, "package-lock.json");
const markerPath = join(root, "node_modules", ".deps-installed");

const lockHash = createHash("sha256").update(readFileSync(lockPath)).digest("hex");
const installedHash = existsSync(markerPath) ? readFileSync(markerPath, "utf8").trim() : "";
const bunPresent = existsSync(join(root, "node_modules", ".bin", "bun"));

if (installedHash !== lockHash || !bunPresent) {
  console.log("Installing dependencies from package-lock.json (npm ci)...");
  execSync("npm ci --no-audit --no-fund", { cwd: root, stdio: "inherit" });
  writeFileSync(markerPath, lockHash + "\n");
}
