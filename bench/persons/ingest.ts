// Ingest's side of bench/persons: what PersonStore.attribute takes for a batch of new users'
// events (anonymous browsing, identifies that merge, second devices) at each project, on a
// copy of the region file so the cached data stay as generated.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RegionStore } from "../../storage/region-store.ts";
import type { IdentityEvent } from "../../storage/person-store.ts";
import { mulberry32 } from "../ingest/generator.ts";
import { median } from "../figures.ts";
import type { BenchProject } from "./data.ts";
import { batchEventsMax, userEvents } from "./population.ts";

/** One batch of ingest's largest size, of users after the project's own. */
function newUsersBatch(project: BenchProject, run: number, seed: number): IdentityEvent[] {
  const from = project.users + run * batchEventsMax;
  const events = [...userEvents(from, from + batchEventsMax, project.users, mulberry32(seed + run))];
  return events.slice(0, batchEventsMax);
}

/** Median ms per batch of `batchEventsMax` events over `runs` batches, for each project by name; and the merges per batch. */
export function timeAttribution(file: string, projects: BenchProject[], runs: number, seed: number): { msByProject: Record<string, number>; merges: number } {
  const scratch = mkdtempSync(join(tmpdir(), "bench-persons-"));
  const copy = join(scratch, "region.sqlite");
  copyFileSync(file, copy);
  if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
  const store = new RegionStore(copy);
  try {
    const times: Record<string, number[]> = Object.fromEntries(projects.map((project) => [project.name, []]));
    let merges = 0;
    for (let run = 0; run < runs; run++) {
      for (const project of projects) {
        const batch = newUsersBatch(project, run, seed);
        merges = batch.filter((event) => event.anonId !== null).length;
        const started = performance.now();
        store.persons.attribute(project.id, batch);
        times[project.name]!.push(performance.now() - started);
      }
    }
    return { msByProject: Object.fromEntries(Object.entries(times).map(([name, values]) => [name, median(values)])), merges };
  } finally {
    store.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
