// The bench's persons as the small tables hand-written SQL joins where a case needs them:
// `person_overrides` (person_index -> surviving person, the tenth merged), `person_plans`
// (person -> plan) and `person_created` (person -> creation time, epoch ms).
import type { DuckDBConnection } from "@duckdb/node-api";
import type { BenchData } from "./data.ts";

export interface PersonRows {
  overrides: [personIndex: number, person: number][];
  plans: [person: number, plan: string][];
  created: [person: number, createdMs: number][];
}

export function personRows(data: BenchData): PersonRows {
  const canonical = data.persons.canonical;
  const overrides: PersonRows["overrides"] = [];
  for (let index = 0; index < canonical.length; index++) if (canonical[index] !== index) overrides.push([index, canonical[index]!]);
  const plans = [...(data.personValues.get("plan") ?? new Map<number, unknown>())].map(([person, plan]): [number, string] => [person, String(plan)]);
  const createdTimes = data.persons.createdTimes();
  const created: PersonRows["created"] = [];
  for (let person = 0; person < createdTimes.length; person++) if (!Number.isNaN(createdTimes[person]!)) created.push([person, createdTimes[person]!]);
  return { overrides, plans, created };
}

/** Creates the three tables in DuckDB (loading them is set-up, not timed). */
export async function loadPersonTables(connection: DuckDBConnection, rows: PersonRows): Promise<void> {
  await connection.run("CREATE OR REPLACE TABLE person_overrides (person_index INTEGER PRIMARY KEY, person_id INTEGER NOT NULL)");
  await connection.run("CREATE OR REPLACE TABLE person_plans (person_id INTEGER PRIMARY KEY, plan VARCHAR NOT NULL)");
  await connection.run("CREATE OR REPLACE TABLE person_created (person_id INTEGER PRIMARY KEY, created_ms BIGINT NOT NULL)");
  const overrides = await connection.createAppender("person_overrides");
  for (const [index, person] of rows.overrides) {
    overrides.appendInteger(index);
    overrides.appendInteger(person);
    overrides.endRow();
  }
  overrides.closeSync();
  const plans = await connection.createAppender("person_plans");
  for (const [person, plan] of rows.plans) {
    plans.appendInteger(person);
    plans.appendVarchar(plan);
    plans.endRow();
  }
  plans.closeSync();
  const created = await connection.createAppender("person_created");
  for (const [person, ms] of rows.created) {
    created.appendInteger(person);
    created.appendBigInt(BigInt(ms));
    created.endRow();
  }
  created.closeSync();
}
