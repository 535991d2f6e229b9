// GET /v1/about: what build this is and the open-source attribution notice, generated from the
// licences of the packages installed for production (package-lock.json's packages without
// `dev`), so the notice always matches what ships.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface AboutDto {
  name: string;
  version: string;
  /** The git commit the process runs, when it runs from a clone (BUILD_COMMIT overrides). */
  commit: string | null;
  dependencies: { name: string; version: string; license: string }[];
  notice: string;
}

interface LockPackage {
  version?: string;
  license?: string;
  dev?: boolean;
}

const root = join(import.meta.dir, "../..");

/** The commit of the clone the process runs from (a worktree too), or null without git or a clone. */
function gitCommit(): string | null {
  try {
    const result = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: root, stderr: "ignore" });
    return result.exitCode === 0 ? result.stdout.toString().trim() : null;
  } catch {
    return null;
  }
}

function productionPackages(): AboutDto["dependencies"] {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages: Record<string, LockPackage> };
  const found = new Map<string, AboutDto["dependencies"][number]>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith("node_modules/") || entry.dev) continue;
    const name = path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
    const version = entry.version ?? "unknown";
    found.set(`${name}@${version}`, { name, version, license: entry.license ?? "see the package" });
  }
  return [...found.values()].sort((a, b) => (a.name === b.name ? a.version.localeCompare(b.version) : a.name < b.name ? -1 : 1));
}

let cached: AboutDto | null = null;

export function about(buildCommit: string | null): AboutDto {
  if (cached) return cached;
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; version: string };
  const dependencies = productionPackages();
  const notice = [
    `${pkg.name} ${pkg.version} includes the following open-source packages, each under its own licence:`,
    "",
    ...dependencies.map(({ name, version, license }) => `${name} ${version}: ${license}`),
  ].join("\n");
  cached = { name: pkg.name, version: pkg.version, commit: buildCommit ?? gitCommit(), dependencies, notice };
  return cached;
}
