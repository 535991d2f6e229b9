// The region API requests bench/persons times against each project, and the persons, group
// keys and cursors they name, drawn with a seeded generator from what the project holds.
import { Database } from "bun:sqlite";
import { encodeCursor } from "../../server/region/paging.ts";

export interface Targets {
  /** Surviving persons' ids, and those of identified persons (who have an identity history). */
  personIds: string[];
  identifiedIds: string[];
  /** Keys of existing groups of type 0 (company). */
  groupKeys: string[];
  /** Person indexes the project has used (cursors fall anywhere below). */
  indexCount: number;
}

export interface RequestCase {
  name: string;
  /** The path under the region API; `random` picks what a request names. */
  path: (targets: Targets, random: () => number) => string;
}

const pick = <T>(values: T[], random: () => number): T => values[Math.floor(random() * values.length)]!;

/** Up to `count` of each kind of target, drawn with `random` from the project's rows in region.sqlite. */
export function sampleTargets(file: string, projectId: string, count: number, random: () => number): Targets {
  const db = new Database(file, { readonly: true });
  try {
    const indexCount = (db.query("SELECT person_index FROM persons WHERE project_id = ? ORDER BY person_index DESC LIMIT 1").get(projectId) as { person_index: number }).person_index + 1;
    const person = db.query("SELECT id, is_identified FROM persons WHERE project_id = ? AND person_index = ? AND merged_into IS NULL");
    const groups = (db.query("SELECT COUNT(*) AS count FROM groups WHERE project_id = ? AND group_index = 0").get(projectId) as { count: number }).count;
    const group = db.query("SELECT group_key FROM groups WHERE project_id = ? AND group_index = 0 ORDER BY group_key LIMIT 1 OFFSET ?");
    const targets: Targets = { personIds: [], identifiedIds: [], groupKeys: [], indexCount };
    while (targets.personIds.length < count || targets.identifiedIds.length < count) {
      const row = person.get(projectId, Math.floor(random() * indexCount)) as { id: string; is_identified: number } | null;
      if (!row) continue;
      if (targets.personIds.length < count) targets.personIds.push(row.id);
      if (row.is_identified === 1 && targets.identifiedIds.length < count) targets.identifiedIds.push(row.id);
    }
    for (let i = 0; i < count; i++) targets.groupKeys.push((group.get(projectId, Math.floor(random() * groups)) as { group_key: string }).group_key);
    return targets;
  } finally {
    db.close();
  }
}

export const requestCases: RequestCase[] = [
  { name: "persons: first page of 100", path: () => "/persons?limit=100" },
  { name: "persons: first page of 1,000", path: () => "/persons?limit=1000" },
  { name: "persons: page of 100 at a random cursor", path: (t, random) => `/persons?limit=100&cursor=${encodeCursor({ before: Math.floor(random() * t.indexCount) })}` },
  { name: "persons: property filter (plan = scale), page of 100", path: () => "/persons?property=plan&value=scale&limit=100" },
  { name: "persons: search matching nobody, page of 100", path: () => "/persons?search=zz-nobody&limit=100" },
  { name: "person by id", path: (t, random) => `/persons/${pick(t.personIds, random)}` },
  { name: "person's identity (identified person)", path: (t, random) => `/persons/${pick(t.identifiedIds, random)}/identity` },
  { name: "groups: first page of 100", path: () => "/groups?limit=100" },
  { name: "groups: page of 100 at a random cursor", path: (t, random) => `/groups?limit=100&cursor=${encodeCursor({ type_index: 0, key: pick(t.groupKeys, random) })}` },
  { name: "groups: search matching none, page of 100", path: () => "/groups?search=zz-none&limit=100" },
  { name: "group by key", path: (t, random) => `/groups/0/${encodeURIComponent(pick(t.groupKeys, random))}` },
];

/** Milliseconds from sending the request to having read the whole answer (which must be 200). */
export async function timeRequest(url: string, token: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}: ${body.slice(0, 500)}`);
  return elapsed;
}
