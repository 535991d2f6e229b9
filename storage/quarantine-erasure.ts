// The erasure of WAL records set aside in quarantine/ (EventStore.addWalRecord). Such a record
// could not be read, so it is searched as text: its header names the project as a JSON string
// and its body is the request's JSON text as received, where a distinct id shows as a JSON
// string, quotes included (so a short id does not match every record that merely contains it).
// A record of the project showing any subject's id is deleted whole: it was stored nowhere, and
// nothing but the file holds it.
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fsyncDirectory } from "./atomic-file.ts";
import { quarantineDir, quarantineSuffix } from "./event-store.ts";

/** The paths of the project's quarantined records that show any of `distinctIds`. */
export function quarantinedRecordsOf(dataDir: string, projectId: string, distinctIds: readonly string[]): string[] {
  const dir = join(dataDir, quarantineDir);
  if (!existsSync(dir)) return [];
  const needles = distinctIds.map((id) => JSON.stringify(id));
  const project = JSON.stringify(projectId);
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(quarantineSuffix)) continue;
    const path = join(dir, name);
    const text = readFileSync(path).toString("utf8");
    if (text.includes(project) && needles.some((needle) => text.includes(needle))) found.push(path);
  }
  return found;
}

/** Deletes the project's quarantined records that show any of `distinctIds`; returns how many. */
export function eraseQuarantinedRecords(dataDir: string, projectId: string, distinctIds: readonly string[]): number {
  const found = quarantinedRecordsOf(dataDir, projectId, distinctIds);
  for (const path of found) rmSync(path);
  if (found.length > 0) fsyncDirectory(join(dataDir, quarantineDir));
  return found.length;
}
