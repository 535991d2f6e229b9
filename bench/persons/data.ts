// bench/persons' data: one service data directory with an account, a personal access token and
// two projects in region eu, a small one (the baseline) and a large one, whose persons are
// written into the region's region.sqlite through PersonStore.attribute (population.ts) while
// the service is stopped. A million users take minutes, so the directory is cached by seed and
// sizes in bench/persons/.data/ (git-ignored; delete it to generate again).
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RegionStore } from "../../storage/region-store.ts";
import { spawnService } from "../../test/helpers/process.ts";
import { populate } from "./population.ts";

/** Bumped whenever what is generated changes (population.ts, the schema), so old caches are not reused. */
const dataFormat = 1;
const cacheRoot = join(import.meta.dir, ".data");
const doneFile = "bench-data.json";
const jsonHeaders = { "content-type": "application/json" };

export interface BenchProject {
  name: string;
  id: string;
  users: number;
}

export interface BenchData {
  dir: string;
  seed: number;
  /** A personal access token with persons:read, for region tokens. */
  patSecret: string;
  projects: BenchProject[];
  /** Time to write the persons, and region.sqlite's size afterwards. */
  seconds: number;
  bytes: number;
}

export const regionFile = (dir: string) => join(dir, "eu", "region.sqlite");

async function post(url: string, body: unknown, cookie?: string): Promise<Response> {
  const response = await fetch(url, { method: "POST", headers: cookie ? { ...jsonHeaders, cookie } : jsonHeaders, body: JSON.stringify(body) });
  if (response.status >= 300) throw new Error(`POST ${url} answered ${response.status}: ${await response.text()}`);
  return response;
}

/** An account, a token and the projects, made through the console API of a service on `dir`. */
async function createAccounts(dir: string, sizes: Record<string, number>): Promise<Pick<BenchData, "patSecret" | "projects">> {
  const service = await spawnService({ DATA_DIR: dir, REGIONS: "eu" });
  try {
    const signup = await post(`${service.url}/app/auth/signup`, { email: "persons-bench@example.com", name: "Bench", password: "violet-harbour-71-quietly" });
    const cookie = signup.headers.get("set-cookie")!.split(";")[0]!;
    const orgId = ((await signup.json()) as { orgs: { id: string }[] }).orgs[0]!.id;
    const projects: BenchProject[] = [];
    for (const [name, users] of Object.entries(sizes)) {
      const created = (await (await post(`${service.url}/app/orgs/${orgId}/projects`, { name, region: "eu" }, cookie)).json()) as { project: { id: string } };
      projects.push({ name, id: created.project.id, users });
    }
    const token = (await (await post(`${service.url}/app/tokens`, { name: "bench", org_id: orgId, scopes: ["persons:read"] }, cookie)).json()) as { secret: string };
    return { patSecret: token.secret, projects };
  } finally {
    service.child.kill("SIGTERM");
    await service.child.exited;
  }
}

/** The cached data of this seed and these sizes (project name to users), generated first when missing or unfinished. */
export async function openBenchData(seed: number, sizes: Record<string, number>, log: (line: string) => void): Promise<BenchData> {
  const dir = join(cacheRoot, `seed-${seed}-${Object.entries(sizes).map(([name, users]) => `${name}-${users}`).join("-")}-format-${dataFormat}`);
  const donePath = join(dir, doneFile);
  if (existsSync(donePath)) return JSON.parse(readFileSync(donePath, "utf8")) as BenchData;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`generating persons (${Object.entries(sizes).map(([name, users]) => `${name}: ${users.toLocaleString("en-US")} users`).join(", ")}; seed ${seed}) into ${dir} ...`);
  const accounts = await createAccounts(dir, sizes);
  const started = performance.now();
  const store = new RegionStore(regionFile(dir));
  try {
    for (const project of accounts.projects) populate(store.persons, project.id, 0, project.users, project.users, seed);
  } finally {
    store.close();
  }
  const data: BenchData = { dir, seed, ...accounts, seconds: (performance.now() - started) / 1000, bytes: statSync(regionFile(dir)).size };
  writeFileSync(donePath, JSON.stringify(data));
  log(`  written in ${data.seconds.toFixed(0)} s; region.sqlite ${(data.bytes / 2 ** 20).toFixed(0)} MiB`);
  return data;
}
