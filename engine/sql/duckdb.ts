// DuckDB sessions over a project's Parquet files: the reference engine the executor is tested
// and benchmarked against, and what /sql runs on. Each session is an in-memory database with
// the `events` view, `person_overrides` and, when asked, `persons` with person properties and
// `cohort_members` with cohort memberships.
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import type { ValueKind } from "../query-data.ts";
import { valueText } from "../columns.ts";
import { eventsViewSql, type ViewFile } from "./view.ts";
import { identifier } from "./params.ts";
import { personPropertyPrefix } from "./expressions.ts";
import { propertyColumnNames } from "./column-names.ts";

export interface SqlRows {
  columns: string[];
  types: string[];
  rows: unknown[][];
}

export class DuckDbSession {
  private constructor(private readonly instance: DuckDBInstance, readonly connection: DuckDBConnection) {}

  /** `options` are further DuckDB settings of the instance (name to value, as DuckDB spells them). */
  static async open(threads = 2, options: Record<string, string> = {}): Promise<DuckDbSession> {
    const instance = await DuckDBInstance.create(":memory:", { ...options, threads: String(threads) });
    return new DuckDbSession(instance, await instance.connect());
  }

  /** Defines `person_overrides` from the override array and `events` over the files. */
  async defineEvents(files: ViewFile[], properties: Map<string, ValueKind>, canonical: Int32Array): Promise<void> {
    await this.connection.run("CREATE OR REPLACE TEMP TABLE person_overrides (person_index INTEGER PRIMARY KEY, person_id INTEGER NOT NULL)");
    const appender = await this.connection.createAppender("person_overrides", "main", "temp");
    for (let index = 0; index < canonical.length; index++) {
      if (canonical[index] === index) continue;
      appender.appendInteger(index);
      appender.appendInteger(canonical[index]!);
      appender.endRow();
    }
    appender.closeSync();
    await this.connection.run(eventsViewSql(files, properties));
  }

  /** Defines `persons` (person_id, pp_<key> per property) from each person's values. */
  async definePersons(properties: Map<string, { kind: ValueKind; values: Map<number, unknown> }>): Promise<void> {
    const names = propertyColumnNames(personPropertyPrefix, properties.keys());
    const columns = [...properties].map(([key, { kind }]) => `${identifier(names.get(key)!)} ${kind === "number" ? "DOUBLE" : "VARCHAR"}`);
    await this.connection.run(`CREATE OR REPLACE TEMP TABLE persons (person_id INTEGER PRIMARY KEY${columns.map((column) => `, ${column}`).join("")})`);
    const persons = new Set<number>();
    for (const { values } of properties.values()) for (const person of values.keys()) persons.add(person);
    const appender = await this.connection.createAppender("persons", "main", "temp");
    for (const person of persons) {
      appender.appendInteger(person);
      for (const { kind, values } of properties.values()) {
        const value = values.get(person);
        if (value === undefined || value === null) appender.appendNull();
        else if (kind === "number") appender.appendDouble(value as number);
        else appender.appendVarchar(valueText(value));
      }
      appender.endRow();
    }
    appender.closeSync();
  }

  /** Defines `person_created` (person_id, created_at) for the surviving persons (created[i] not NaN). */
  async definePersonCreated(created: Float64Array): Promise<void> {
    await this.connection.run("CREATE OR REPLACE TEMP TABLE person_created_ms (person_id INTEGER PRIMARY KEY, created_ms BIGINT NOT NULL)");
    const appender = await this.connection.createAppender("person_created_ms", "main", "temp");
    for (let person = 0; person < created.length; person++) {
      if (Number.isNaN(created[person]!)) continue;
      appender.appendInteger(person);
      appender.appendBigInt(BigInt(created[person]!));
      appender.endRow();
    }
    appender.closeSync();
    await this.connection.run("CREATE OR REPLACE TEMP VIEW person_created AS SELECT person_id, make_timestamptz(created_ms * 1000) AS created_at FROM person_created_ms");
  }

  /**
   * Defines `cohort_members` (cohort_id, person_id) from stored memberships (person indexes by
   * cohort id): each member as the person it is now through `canonical`, once per cohort.
   */
  async defineCohortMembers(memberships: ReadonlyMap<string, Int32Array>, canonical: Int32Array): Promise<void> {
    await this.connection.run("CREATE OR REPLACE TEMP TABLE cohort_members (cohort_id VARCHAR NOT NULL, person_id INTEGER NOT NULL, PRIMARY KEY (cohort_id, person_id))");
    const appender = await this.connection.createAppender("cohort_members", "main", "temp");
    for (const [cohortId, members] of memberships) {
      const persons = new Set<number>();
      for (const member of members) persons.add(member < canonical.length ? canonical[member]! : member);
      for (const person of persons) {
        appender.appendVarchar(cohortId);
        appender.appendInteger(person);
        appender.endRow();
      }
    }
    appender.closeSync();
  }

  async run(sql: string, params: (string | number | boolean)[] = []): Promise<SqlRows> {
    const reader = await this.connection.runAndReadAll(sql, params);
    return {
      columns: reader.columnNames(),
      types: reader.columnTypes().map(String),
      rows: reader.getRowsJS(),
    };
  }

  /** Rows as objects (column name to value), numbers as JS numbers. */
  async rowObjects<T>(sql: string, params: (string | number | boolean)[] = []): Promise<T[]> {
    const reader = await this.connection.runAndReadAll(sql, params);
    return reader.getRowObjectsJS().map((row) =>
      Object.fromEntries(Object.entries(row).map(([name, value]) => [name, typeof value === "bigint" ? Number(value) : value])),
    ) as T[];
  }

  close(): void {
    this.connection.closeSync();
    this.instance.closeSync();
  }
}
